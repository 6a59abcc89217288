package io.fenceguard.example.standalone;

import io.fenceguard.core.LeaseManager;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.Gate;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.LongConsumer;
import javax.sql.DataSource;
import org.redisson.api.RedissonClient;

/**
 * The programmatic form, for code outside Spring: the same read-modify-write deposit as the service's
 * {@code LedgerDao}, with a {@link LeaseManager} and a {@link FencedDataSource} built by hand.
 */
public final class PlainJdbcLedger {

    private final LeaseManager leases;
    private final DataSource fenced;

    public PlainJdbcLedger(RedissonClient redisson, DataSource pool) {
        this(LeaseManager.of(redisson), pool);
    }

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
                Gate.claim(c);
                balance = balance(c, id);
                c.commit();
            }
            betweenReadAndWrite.accept(balance);
            long newBalance = Math.addExact(balance, amount);
            try (Connection c = fenced.getConnection()) {
                c.setAutoCommit(false);
                Gate.claim(c);
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
