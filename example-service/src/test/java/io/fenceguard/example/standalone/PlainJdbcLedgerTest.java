package io.fenceguard.example.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.jdbc.FencingRefusedException;
import io.fenceguard.jdbc.StaleTokenException;
import io.fenceguard.testsupport.JdbcEndpoint;
import io.fenceguard.testsupport.TestServers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** The programmatic form against real PostgreSQL and Redis, with a pause past the lease. */
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
             LeaseManager leases = LeaseManager.of(redisson, LeaseConfig.builder()
                     .leaseTime(Duration.ofSeconds(1)).lockDelay(Duration.ofMillis(100))
                     .keyPrefix(database + ":").build())) {
            Flyway.configure().dataSource(ds)
                    .locations("classpath:db/migration/postgresql", "classpath:db/example").load().migrate();
            execute(ds, "INSERT INTO accounts (id, balance) VALUES ('p1', 100)");
            PlainJdbcLedger ledger = new PlainJdbcLedger(leases, ds);

            assertThat(ledger.deposit("p1", 5, Duration.ofSeconds(5), balance -> { })).isEqualTo(105);

            CompletableFuture<Long> paused = CompletableFuture.supplyAsync(() -> {
                try {
                    return ledger.deposit("p1", 7, Duration.ofSeconds(5), balance -> {
                        LeaseContext.requireValid().suspendRenewal(Duration.ofSeconds(10));
                        sleep(2_500);
                    });
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            sleep(300);
            assertThat(ledger.deposit("p1", 11, Duration.ofSeconds(10), balance -> { })).isEqualTo(116);
            assertThatThrownBy(paused::join).hasRootCauseInstanceOf(io.fenceguard.core.LeaseLostException.class)
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

    private static void execute(javax.sql.DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
