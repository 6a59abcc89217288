package io.fenceguard.redis;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Epochs from a sequence in the application's own database (PostgreSQL, MariaDB 10.3+, H2): each
 * {@link #nextEpoch()} is one {@code nextval}, durable once returned (with the database's default
 * durability: PostgreSQL {@code synchronous_commit = on}, InnoDB {@code innodb_flush_log_at_trx_commit = 1})
 * and never handed out twice, also across crashes.
 *
 * <p>The sequence ({@code fenceguard_token_epoch} unless named otherwise) is created on first use when
 * missing. It starts at the current time in µs divided by {@code 2^24}, plus one, so that the first epoch
 * token lies above every token the clock floor has minted until now: switching an installation from the
 * clock floor to the durable epoch keeps tokens growing. That start is the only use of a clock.
 *
 * <pre>{@code
 * RedisLeaseConfig config = RedisLeaseConfig.builder()
 *         .tokenEpochSource(JdbcTokenEpochSource.of(dataSource))
 *         .build();
 * }</pre>
 *
 * Give it a plain pooling {@code DataSource}: the statements run in auto-commit.
 */
public final class JdbcTokenEpochSource implements TokenEpochSource {

    /** The default sequence name. */
    public static final String DEFAULT_SEQUENCE = "fenceguard_token_epoch";

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

    private final DataSource dataSource;
    private final String sequence;
    private final int queryTimeoutSeconds;
    private volatile Dialect dialect;

    private JdbcTokenEpochSource(DataSource dataSource, String sequence, Duration queryTimeout) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.sequence = Objects.requireNonNull(sequence, "sequence");
        if (!NAME.matcher(sequence).matches()) {
            throw new IllegalArgumentException("sequence must be [schema.]name of letters, digits and '_', got '" + sequence + "'");
        }
        Objects.requireNonNull(queryTimeout, "queryTimeout");
        if (queryTimeout.isNegative() || queryTimeout.isZero()) {
            throw new IllegalArgumentException("queryTimeout must be positive, got " + queryTimeout);
        }
        this.queryTimeoutSeconds = (int) Math.max(1, Math.min(Integer.MAX_VALUE, (queryTimeout.toMillis() + 999) / 1000));
    }

    public static JdbcTokenEpochSource of(DataSource dataSource) {
        return of(dataSource, DEFAULT_SEQUENCE, Duration.ofSeconds(5));
    }

    /** With a sequence name of its own ({@code [schema.]name}) and a statement timeout (rounded up to seconds). */
    public static JdbcTokenEpochSource of(DataSource dataSource, String sequence, Duration queryTimeout) {
        return new JdbcTokenEpochSource(dataSource, sequence, queryTimeout);
    }

    public String sequence() {
        return sequence;
    }

    @Override
    public long nextEpoch() {
        try (Connection connection = dataSource.getConnection()) {
            if (!connection.getAutoCommit()) {
                connection.setAutoCommit(true);
            }
            Dialect d = dialect;
            if (d == null) {
                d = Dialect.of(connection.getMetaData().getDatabaseProductName());
                create(connection, d);
                dialect = d;
            }
            try (Statement statement = connection.createStatement()) {
                statement.setQueryTimeout(queryTimeoutSeconds);
                try (ResultSet rs = statement.executeQuery(d.next(sequence))) {
                    if (!rs.next()) {
                        throw new IllegalStateException("sequence " + sequence + " returned no row");
                    }
                    long epoch = rs.getLong(1);
                    if (epoch <= 0) {
                        throw new IllegalStateException("sequence " + sequence + " returned " + epoch + "; epochs are positive");
                    }
                    return epoch;
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot take the next token epoch from sequence " + sequence + ": " + e.getMessage(), e);
        }
    }

    private void create(Connection connection, Dialect d) throws SQLException {
        long start = System.currentTimeMillis() * 1000 / (1L << io.fenceguard.redis.internal.EpochTokens.COUNTER_BITS) + 1;
        try (Statement statement = connection.createStatement()) {
            statement.setQueryTimeout(queryTimeoutSeconds);
            statement.execute("CREATE SEQUENCE IF NOT EXISTS " + sequence + " START WITH " + start
                    + " INCREMENT BY 1 " + d.noCache());
        }
    }

    private enum Dialect {
        POSTGRESQL, MARIADB, H2;

        static Dialect of(String product) {
            String p = product.toLowerCase(Locale.ROOT);
            if (p.contains("postgres")) {
                return POSTGRESQL;
            }
            if (p.contains("mariadb")) {
                return MARIADB;
            }
            if (p.contains("h2")) {
                return H2;
            }
            throw new IllegalStateException("no token epoch sequence for " + product
                    + "; supported: PostgreSQL, MariaDB 10.3+, H2; "
                    + "elsewhere implement TokenEpochSource on a counter that only grows");
        }

        String next(String sequence) {
            return switch (this) {
                case POSTGRESQL -> "SELECT nextval('" + sequence + "')";
                case MARIADB -> "SELECT NEXTVAL(" + sequence + ")";
                case H2 -> "SELECT NEXT VALUE FOR " + sequence;
            };
        }

        /** MariaDB caches 1000 values per server by default; a restart would skip them, never reuse them, but keep it plain. */
        String noCache() {
            return this == MARIADB ? "NOCACHE" : "";
        }
    }
}
