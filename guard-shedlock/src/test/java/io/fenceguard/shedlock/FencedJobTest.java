package io.fenceguard.shedlock;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.FencingRefusedException;
import io.fenceguard.redis.RedisLeaseConfig;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.TestServers;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor.TaskResult;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * ShedLock jobs on two instances (Redis locks) write one PostgreSQL row through a fenced DataSource:
 * each run stamps the row with its token, and a run that overran lockAtMostFor cannot write.
 */
class FencedJobTest {

    private static final String TABLE = "fg_shedlock_report";
    private static RedissonClient redisson;
    private static DataSource raw;
    private static DataSource fenced;

    @BeforeAll
    static void servers() throws SQLException {
        Config config = new Config();
        config.useSingleServer().setAddress(TestServers.redis().uri()).setTimeout(1_000).setRetryAttempts(0);
        redisson = Redisson.create(config);
        JdbcEndpoint pg = TestServers.postgres();
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(pg.url());
        dataSource.setUser(pg.user());
        dataSource.setPassword(pg.password());
        raw = dataSource;
        FenceguardMigrations.migrate(raw);
        execute("DROP TABLE IF EXISTS " + TABLE,
                "CREATE TABLE " + TABLE + " (id INT PRIMARY KEY, runs INT NOT NULL, current_token BIGINT)",
                "INSERT INTO " + TABLE + " VALUES (1, 0, NULL)");
        fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence(TABLE).build());
    }

    @AfterAll
    static void close() {
        redisson.shutdown();
    }

    @Test
    void eachRunWritesWithItsTokenAndAnOverrunningRunIsRefused() throws Exception {
        RedisLeaseConfig redis = RedisLeaseConfig.builder()
                .keyPrefix("fgshed-" + UUID.randomUUID().toString().substring(0, 8) + ":")
                .lockDelay(Duration.ofMillis(300)).build();
        LeaseConfig lease = LeaseConfig.builder().leaseTime(Duration.ofSeconds(2)).build();
        try (LeaseManager managerA = LeaseManager.of(RedisLeaseProvider.of(RedissonScriptClient.of(redisson), redis), lease);
             LeaseManager managerB = LeaseManager.of(RedisLeaseProvider.of(RedissonScriptClient.of(redisson), redis), lease);
             FenceguardLockProvider a = new FenceguardLockProvider(managerA);
             FenceguardLockProvider b = new FenceguardLockProvider(managerB)) {
            DefaultLockingTaskExecutor onA = new DefaultLockingTaskExecutor(a);
            DefaultLockingTaskExecutor onB = new DefaultLockingTaskExecutor(b);

            onA.executeWithLock((Runnable) FencedJobTest::job, config(Duration.ofSeconds(10)));
            long first = rowToken();
            onB.executeWithLock((Runnable) FencedJobTest::job, config(Duration.ofSeconds(10)));
            long second = rowToken();
            assertThat(second).isGreaterThan(first);
            assertThat(runs()).isEqualTo(2);

            // A run on A overruns its lockAtMostFor; B's next run gets in and writes meanwhile.
            SimpleLock overrun = a.lock(config(Duration.ofMillis(500))).orElseThrow();
            FencingToken overrunToken = LeaseContext.requireValid().token();
            TaskResult<Long> next = CompletableFuture.supplyAsync(() -> runWhenFree(onB)).get(10, TimeUnit.SECONDS);
            assertThat(next.wasExecuted()).isTrue();
            assertThat(rowToken()).isEqualTo(next.getResult()).isGreaterThan(overrunToken.value());

            assertThatThrownBy(FencedJobTest::write).isInstanceOfSatisfying(FencingRefusedException.class,
                    e -> assertThat(e.reason()).isEqualTo(FencingRefusedException.Reason.LEASE_LOST));
            overrun.unlock();
            assertThat(runs()).as("the overrunning run wrote nothing").isEqualTo(3);
        }
    }

    private static TaskResult<Long> runWhenFree(DefaultLockingTaskExecutor executor) {
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
            while (System.nanoTime() < deadline) {
                TaskResult<Long> result = executor.executeWithLock(() -> {
                    write();
                    return LeaseContext.requireValid().token().value();
                }, config(Duration.ofSeconds(10)));
                if (result.wasExecuted()) {
                    return result;
                }
                Thread.sleep(20);
            }
            throw new AssertionError("the lock was not freed at lockAtMostFor");
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }

    private static LockConfiguration config(Duration atMost) {
        return new LockConfiguration(Instant.now(), "report", atMost, Duration.ZERO);
    }

    private static void job() {
        try {
            write();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void write() throws SQLException {
        try (Connection c = fenced.getConnection();
             PreparedStatement ps = c.prepareStatement("UPDATE " + TABLE + " SET runs = runs + 1 WHERE id = ?")) {
            ps.setInt(1, 1);
            ps.executeUpdate();
        }
    }

    private static long rowToken() throws SQLException {
        return queryLong("SELECT current_token FROM " + TABLE + " WHERE id = 1");
    }

    private static long runs() throws SQLException {
        return queryLong("SELECT runs FROM " + TABLE + " WHERE id = 1");
    }

    private static long queryLong(String sql) throws SQLException {
        try (Connection c = raw.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void execute(String... statements) throws SQLException {
        try (Connection c = raw.getConnection(); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }
}
