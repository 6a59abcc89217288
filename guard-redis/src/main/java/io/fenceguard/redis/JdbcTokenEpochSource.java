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
 *
 * <p>Its {@link #identity()} is the database (PostgreSQL's system identifier and database name, MariaDB's host
 * and port, H2's URL) and the sequence's schema-qualified name; {@link #highestEpoch()} reads the sequence
 * without advancing it (before the sequence exists: the epoch it would start after); {@link #advancePast(long)}
 * moves it forward when a lock store moves to it.
 *
 * <p>An in-memory database (H2 {@code mem:}) is not a durable source: it forgets the sequence when the application
 * stops, and a new one names itself anew. The Spring Boot wiring never takes epochs from one.
 */
public final class JdbcTokenEpochSource implements TokenEpochSource {

    /** The default sequence name. */
    public static final String DEFAULT_SEQUENCE = "fenceguard_token_epoch";

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

    private final DataSource dataSource;
    private final String sequence;
    private final int queryTimeoutSeconds;
    private volatile Dialect dialect;
    private volatile String identity;

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

    @Override
    public String identity() {
        String known = identity;
        if (known != null) {
            return known;
        }
        try (Connection connection = dataSource.getConnection()) {
            Dialect d = Dialect.of(connection.getMetaData().getDatabaseProductName());
            String[] parts = sequence.split("\\.");
            String schema = parts.length == 2 ? parts[0] : null;
            String name = parts[parts.length - 1];
            String database;
            try (Statement statement = connection.createStatement()) {
                statement.setQueryTimeout(queryTimeoutSeconds);
                switch (d) {
                    case POSTGRESQL -> {
                        try (ResultSet rs = statement.executeQuery("SELECT (SELECT system_identifier FROM "
                                + "pg_control_system()), current_database(), current_schema()")) {
                            rs.next();
                            database = "postgresql:" + rs.getString(1) + "/" + rs.getString(2);
                            schema = schema != null ? schema : rs.getString(3);
                        }
                        schema = schema.toLowerCase(Locale.ROOT);
                        name = name.toLowerCase(Locale.ROOT);
                    }
                    case MARIADB -> {
                        try (ResultSet rs = statement.executeQuery("SELECT @@hostname, @@port, DATABASE()")) {
                            rs.next();
                            database = "mariadb:" + rs.getString(1) + ":" + rs.getString(2);
                            schema = schema != null ? schema : rs.getString(3);
                        }
                    }
                    default -> {
                        database = "h2:" + connection.getMetaData().getURL();
                        schema = (schema != null ? schema : connection.getSchema()).toUpperCase(Locale.ROOT);
                        name = name.toUpperCase(Locale.ROOT);
                    }
                }
            }
            known = database + "/" + schema + "." + name;
            identity = known;
            return known;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot identify the token epoch sequence " + sequence + ": " + e.getMessage(), e);
        }
    }

    /**
     * The last value the sequence handed out, read without advancing it; before the sequence exists the value it
     * would start after (the current time in µs divided by {@code 2^24}), so that tokens of the clock floor minted
     * until now are below the bound too.
     */
    @Override
    public long highestEpoch() {
        try (Connection connection = dataSource.getConnection()) {
            Dialect d = Dialect.of(connection.getMetaData().getDatabaseProductName());
            try (Statement statement = connection.createStatement()) {
                statement.setQueryTimeout(queryTimeoutSeconds);
                try (ResultSet rs = statement.executeQuery(d.highest(sequence))) {
                    if (rs.next()) {
                        return d == Dialect.POSTGRESQL && rs.getBoolean(2) ? rs.getLong(1) : rs.getLong(1) - 1;
                    }
                    return startEpoch() - 1;
                }
            } catch (SQLException e) {
                if (d.isMissingSequence(e)) {
                    return startEpoch() - 1;
                }
                throw e;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the highest token epoch of sequence " + sequence + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * Moves the sequence forward so that its next value is above {@code epoch}, creating it when missing; never moves
     * it back (PostgreSQL {@code setval} to the greater of both, MariaDB {@code SETVAL}, which ignores a lower value,
     * H2 {@code ALTER SEQUENCE ... RESTART WITH} only when its next value is not above).
     */
    @Override
    public void advancePast(long epoch) {
        if (epoch < 0 || epoch >= io.fenceguard.redis.internal.EpochTokens.MAX_EPOCH) {
            throw new IllegalArgumentException("epoch must be in 0.." + (io.fenceguard.redis.internal.EpochTokens.MAX_EPOCH - 1)
                    + ", got " + epoch);
        }
        try (Connection connection = dataSource.getConnection()) {
            if (!connection.getAutoCommit()) {
                connection.setAutoCommit(true);
            }
            Dialect d = Dialect.of(connection.getMetaData().getDatabaseProductName());
            create(connection, d);
            dialect = d;
            try (Statement statement = connection.createStatement()) {
                statement.setQueryTimeout(queryTimeoutSeconds);
                switch (d) {
                    case POSTGRESQL -> statement.execute("SELECT setval('" + sequence + "', greatest(" + epoch
                            + ", (SELECT last_value FROM " + sequence + ")), true)");
                    case MARIADB -> statement.execute("SELECT SETVAL(" + sequence + ", " + epoch + ")");
                    case H2 -> {
                        long next;
                        try (ResultSet rs = statement.executeQuery(d.highest(sequence))) {
                            next = rs.next() ? rs.getLong(1) : 0;
                        }
                        if (next <= epoch) {
                            statement.execute("ALTER SEQUENCE " + sequence + " RESTART WITH " + (epoch + 1));
                        }
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot advance the token epoch sequence " + sequence + " past " + epoch
                    + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "JdbcTokenEpochSource[" + sequence + "]";
    }

    /** The first epoch of a sequence created now: its first token lies above the clock floor's tokens until now. */
    private static long startEpoch() {
        return System.currentTimeMillis() * 1000 / (1L << io.fenceguard.redis.internal.EpochTokens.COUNTER_BITS) + 1;
    }

    private void create(Connection connection, Dialect d) throws SQLException {
        long start = startEpoch();
        try (Statement statement = connection.createStatement()) {
            statement.setQueryTimeout(queryTimeoutSeconds);
            statement.execute("CREATE SEQUENCE IF NOT EXISTS " + sequence + " START WITH " + start
                    + " INCREMENT BY 1 " + d.noCache());
        } catch (SQLException e) {
            // Another connection created it at the same moment: PostgreSQL's IF NOT EXISTS does not cover two
            // creations at once (the loser fails on the catalog's unique index). The sequence is there either way.
            if (!d.isDuplicate(e)) {
                throw e;
            }
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

        /** The sequence's state without advancing it (PostgreSQL: the last value and whether it was handed out). */
        String highest(String sequence) {
            return switch (this) {
                case POSTGRESQL -> "SELECT last_value, is_called FROM " + sequence;
                case MARIADB -> "SELECT next_not_cached_value FROM " + sequence;
                case H2 -> {
                    String[] parts = sequence.split("\\.");
                    String name = parts[parts.length - 1].toUpperCase(Locale.ROOT);
                    String schema = parts.length == 2 ? "'" + parts[0].toUpperCase(Locale.ROOT) + "'" : "CURRENT_SCHEMA";
                    yield "SELECT BASE_VALUE FROM INFORMATION_SCHEMA.SEQUENCES WHERE SEQUENCE_SCHEMA = " + schema
                            + " AND SEQUENCE_NAME = '" + name + "'";
                }
            };
        }

        boolean isMissingSequence(SQLException e) {
            String state = e.getSQLState();
            return switch (this) {
                case POSTGRESQL -> "42P01".equals(state);
                case MARIADB -> "42S02".equals(state) || e.getErrorCode() == 1146;
                case H2 -> false;
            };
        }

        /** The object was created by another connection between the check of IF NOT EXISTS and the creation. */
        boolean isDuplicate(SQLException e) {
            String state = e.getSQLState();
            return switch (this) {
                case POSTGRESQL -> "23505".equals(state) || "42P07".equals(state);
                case MARIADB -> "42S01".equals(state) || e.getErrorCode() == 1050;
                case H2 -> "42S01".equals(state) || "90035".equals(state);
            };
        }

        /** MariaDB caches 1000 values per server by default; a restart would skip them, never reuse them, but keep it plain. */
        String noCache() {
            return this == MARIADB ? "NOCACHE" : "";
        }
    }
}
