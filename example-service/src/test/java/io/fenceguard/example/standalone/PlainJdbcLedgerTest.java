package io.fenceguard.example.standalone;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseLostException;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.example.chaos.ChaosLeaseProvider;
import io.fenceguard.jdbc.FencingRefusedException;
import io.fenceguard.jdbc.StaleTokenException;
import io.fenceguard.redis.RedisLeaseConfig;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.TestServers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The programmatic form against real PostgreSQL and Redis: its migrations (the ledger's and the guard's,
 * each with its own history), and a holder paused past its lease (renewals withheld by
 * {@link ChaosLeaseProvider}) whose write is refused after another holder's.
 */
class PlainJdbcLedgerTest {

    @Test
    void depositsUnderALeaseAndFencesOutAPausedHolder() throws Exception {
        JdbcEndpoint server = TestServers.postgres();
        String database = "fgplain_" + UUID.randomUUID().toString().substring(0, 8);
        execute(server.url(), server, "CREATE DATABASE " + database);
        Config config = new Config();
        config.useSingleServer().setAddress(TestServers.redis().uri());
        RedissonClient redisson = Redisson.create(config);
        HikariConfig pool = new HikariConfig();
        pool.setJdbcUrl(server.url().replaceFirst("/[^/?]+(\\?|$)", "/" + database + "$1"));
        pool.setUsername(server.user());
        pool.setPassword(server.password());
        try (HikariDataSource ds = new HikariDataSource(pool);
             ChaosLeaseProvider store = new ChaosLeaseProvider(RedisLeaseProvider.of(RedissonScriptClient.of(redisson), RedisLeaseConfig.builder()
                     .lockDelay(Duration.ofMillis(100)).keyPrefix(database + ":").build()));
             LeaseManager leases = LeaseManager.of(store, LeaseConfig.builder().leaseTime(Duration.ofSeconds(1)).build())) {
            PlainJdbcLedger.migrate(ds);
            assertThat(count(ds, "SELECT COUNT(*) FROM flyway_schema_history WHERE success")).isEqualTo(3);   // V1 ledger, V2 audit outbox, V3 audit projection
            assertThat(count(ds, "SELECT COUNT(*) FROM " + FenceguardMigrations.HISTORY_TABLE
                    + " WHERE success AND version IS NOT NULL AND version <> '0'")).isPositive();
            assertThat(count(ds, "SELECT COUNT(*) FROM fenceguard_gate")).isZero();
            PlainJdbcLedger.migrate(ds);   // a second start: nothing left to do, nothing fails
            execute(ds, "INSERT INTO accounts (id, balance) VALUES ('p1', 100)");
            PlainJdbcLedger ledger = new PlainJdbcLedger(leases, ds);

            assertThat(ledger.deposit("p1", 5, Duration.ofSeconds(5), balance -> { })).isEqualTo(105);

            CompletableFuture<Long> paused = CompletableFuture.supplyAsync(() -> {
                try {
                    return ledger.deposit("p1", 7, Duration.ofSeconds(5), balance -> {
                        store.pauseRenewals(LeaseContext.requireValid().holder(), Duration.ofSeconds(10));
                        sleep(2_500);
                    });
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            sleep(300);
            assertThat(ledger.deposit("p1", 11, Duration.ofSeconds(10), balance -> { })).isEqualTo(116);
            assertThatThrownBy(paused::join).hasRootCauseInstanceOf(LeaseLostException.class)
                    .satisfies(e -> assertThat(e.getCause().getCause())
                            .isInstanceOfAny(FencingRefusedException.class, StaleTokenException.class));
            try (Connection c = ds.getConnection(); Statement s = c.createStatement();
                 var rs = s.executeQuery("SELECT balance FROM accounts WHERE id = 'p1'")) {
                rs.next();
                assertThat(rs.getLong(1)).isEqualTo(116);
            }
        } finally {
            redisson.shutdown();
            execute(server.url(), server, "DROP DATABASE " + database);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void execute(String url, JdbcEndpoint server, String sql) throws SQLException {
        try (Connection c = java.sql.DriverManager.getConnection(url, server.user(), server.password());
             Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static long count(javax.sql.DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); var rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void execute(javax.sql.DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
