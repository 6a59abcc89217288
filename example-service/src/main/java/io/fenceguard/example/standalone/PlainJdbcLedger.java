package io.fenceguard.example.standalone;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.HighWaterMarks;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.LongConsumer;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/**
 * The programmatic form, for code outside Spring: the same read-modify-write deposit as the service's
 * {@code LedgerDao}, with a {@link LeaseManager} and a {@link FencedDataSource} built by hand.
 *
 * <pre>{@code
 * PlainJdbcLedger.migrate(pool);
 * try (RedisLeaseProvider store = RedisLeaseProvider.of(RedissonScriptClient.of(redisson));
 *      LeaseManager leases = LeaseManager.of(store)) {
 *     new PlainJdbcLedger(leases, pool).deposit("42", 5, Duration.ofSeconds(5), balance -> { });
 * }
 * }</pre>
 */
public final class PlainJdbcLedger {

    /** Where the ledger's own schema is: the application's Flyway location, apart from the guard's. */
    public static final String LOCATION = "classpath:db/migration";

    private final LeaseManager leases;
    private final DataSource fenced;

    /**
     * Creates the ledger's tables (its own Flyway history) and then the guard's (their own history,
     * {@link FenceguardMigrations#HISTORY_TABLE}), in that order: the guard's run baselines itself on a
     * schema that is not empty. {@code pool} is the plain DataSource: migrations are admin work, unfenced.
     */
    public static void migrate(DataSource pool) {
        Flyway.configure(PlainJdbcLedger.class.getClassLoader()).dataSource(pool).locations(LOCATION).load().migrate();
        FenceguardMigrations.migrate(pool);
    }

    /** {@code pool} is the plain DataSource; the ledger fences its {@code accounts} table itself. */
    public PlainJdbcLedger(LeaseManager leases, DataSource pool) {
        this.leases = leases;
        this.fenced = FencedDataSource.wrap(pool, FencingConfig.builder().fence("accounts").build());
    }

    /**
     * Adds {@code amount} to the account under a lease on {@code account:<id>} and returns the new
     * balance. {@code betweenReadAndWrite} runs between the two transactions (a place for a pause).
     */
    public long deposit(String id, long amount, Duration wait, LongConsumer betweenReadAndWrite) throws SQLException {
        return leases.callWithLease("account:" + id, wait, lease -> {
            long balance;
            try (Connection c = fenced.getConnection()) {
                c.setAutoCommit(false);
                HighWaterMarks.claim(c);
                balance = balance(c, id);
                c.commit();
            }
            betweenReadAndWrite.accept(balance);
            long newBalance = Math.addExact(balance, amount);
            try (Connection c = fenced.getConnection()) {
                c.setAutoCommit(false);
                HighWaterMarks.claim(c);
                try (PreparedStatement update = c.prepareStatement("UPDATE accounts SET balance = ? WHERE id = ?")) {
                    update.setLong(1, newBalance);
                    update.setString(2, id);
                    update.executeUpdate();
                }
                c.commit();
            }
            return newBalance;
        });
    }

    private static long balance(Connection c, String id) throws SQLException {
        try (PreparedStatement select = c.prepareStatement("SELECT balance FROM accounts WHERE id = ?")) {
            select.setString(1, id);
            try (ResultSet rows = select.executeQuery()) {
                if (!rows.next()) {
                    throw new SQLException("no account '" + id + "'", "02000");
                }
                return rows.getLong(1);
            }
        }
    }
}
