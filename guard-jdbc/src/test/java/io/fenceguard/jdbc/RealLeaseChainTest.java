package io.fenceguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.test.support.faults.PausableLeaseProvider;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The whole chain with real leases from a {@link LeaseManager} (renewed, expiring, lost) on one lock
 * store shared by two holders: a holder paused past its lease is refused fast by the wrapper, and a
 * write that slips past that local check is refused by the database. The store is the in-memory one:
 * what is under test is the lease-to-row chain, which is the same for every store.
 */
class RealLeaseChainTest {

    @ParameterizedTest
    @EnumSource(SqlDialect.class)
    void pausedHolderCannotOverwriteTheNewHoldersBalance(SqlDialect dialect) throws Exception {
        DataSource raw = TestDatabases.of(dialect);
        String table = "fg_chain_" + dialect.name().toLowerCase(Locale.ROOT);
        TestDatabases.execute(raw, "DROP TABLE IF EXISTS " + table,
                "CREATE TABLE " + table + " (id INT PRIMARY KEY, balance BIGINT NOT NULL, current_token BIGINT)",
                "INSERT INTO " + table + " (id, balance) VALUES (1, 100)");
        DataSource fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence(table).build());
        LeaseConfig config = LeaseConfig.builder().leaseTime(Duration.ofMillis(800)).build();
        String update = "UPDATE " + table + " SET balance = ? WHERE id = 1";
        InMemoryLeaseProvider store = InMemoryLeaseProvider.create();
        PausableLeaseProvider pausedView = PausableLeaseProvider.wrap(store);

        try (LeaseManager pausedManager = LeaseManager.of(pausedView, config);
             LeaseManager otherManager = LeaseManager.of(store, config)) {
            Lease paused = pausedManager.acquire("account:1", Duration.ofSeconds(2));
            long read;
            try (LeaseContext.Scope scope = LeaseContext.bind(paused)) {
                read = balance(fenced, table);
                assertThat(write(fenced, update, read + 50)).isEqualTo(1);
            }
            pausedView.pauseAllRenewals(Duration.ofHours(1));                                       // stop-the-world pause begins
            // The next holder asks once the paused lease has run out. (Asking earlier and waiting in
            // the in-memory store hands out a grant whose local time counts from before the wait.)
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (paused.isValid() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(paused.isValid()).as("the paused lease ran out").isFalse();

            try (Lease newer = otherManager.acquire("account:1", Duration.ofSeconds(5));
                 LeaseContext.Scope scope = LeaseContext.bind(newer)) {
                assertThat(newer.token()).isGreaterThan(paused.token());
                assertThat(write(fenced, update, balance(fenced, table) + 1_000)).isEqualTo(1);
            }

            // The paused holder wakes up: the wrapper refuses at once, the lease being lost.
            try (LeaseContext.Scope scope = LeaseContext.bind(paused)) {
                assertThatThrownBy(() -> write(fenced, update, read + 7))
                        .isInstanceOf(FencingRefusedException.class)
                        .satisfies(e -> assertThat(((FencingRefusedException) e).reason())
                                .isEqualTo(FencingRefusedException.Reason.LEASE_LOST));
            }
            // Had it slipped past the local check (its token carried on, say, by a downstream call),
            // the database refuses it with the table, resource and token named.
            try (Lease slipped = Lease.presented(paused.fence(), "slipped");
                 LeaseContext.Scope scope = LeaseContext.bind(slipped)) {
                assertThatThrownBy(() -> write(fenced, update, read + 7))
                        .isInstanceOf(StaleTokenException.class)
                        .hasMessageContaining("account:1")
                        .hasMessageContaining(paused.token().toString())
                        .satisfies(e -> assertThat(((StaleTokenException) e).table()).containsIgnoringCase(table));
            }
            paused.close();
        }
        try (Connection c = raw.getConnection(); PreparedStatement s = c.prepareStatement(
                "SELECT balance FROM " + table + " WHERE id = 1"); ResultSet rs = s.executeQuery()) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getLong(1)).isEqualTo(1_150L);
        }
    }

    private static long balance(DataSource ds, String table) throws SQLException {
        try (Connection c = ds.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT balance FROM " + table + " WHERE id = 1");
             ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static int write(DataSource ds, String sql, long value) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setLong(1, value);
            return s.executeUpdate();
        }
    }
}
