package io.fenceguard.redis;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.StaleTokenException;
import io.fenceguard.test.support.RedisProcess;
import io.fenceguard.test.support.TestServers;
import io.fenceguard.test.support.faults.ClockShim;
import io.fenceguard.test.support.faults.ShiftedClock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * A Redis clock stepped back by 60 s together with a {@code FLUSHALL}, on a redis-server of the test's own
 * under the clock shim, with a PostgreSQL row fenced by fenceguard-jdbc.
 *
 * <p>Holder A is granted the lease before the loss and writes only after B, granted after the loss, has
 * written. With the durable epoch every token after the loss is above every token before it, so A's write is
 * refused. With the clock floor the same run hands out lower tokens and A's write overwrites B's row: the
 * scenario the durable epoch exists for, and proof that this test can fail.
 */
class ClockStepTokenTest {

    private static final String RESOURCE = "account:1";
    private static final Duration STEP_BACK = Duration.ofSeconds(-60);

    private ShiftedClock clock;
    private RedisProcess redis;
    private RedissonClient client;
    private ScratchDataSource database;
    private DataSource fenced;

    @BeforeEach
    void start() {
        ClockShim.assumeAvailable();
        clock = ShiftedClock.create();
        redis = RedisProcess.start(clock);
        client = RedisClients.single(redis.uri());
        database = ScratchDataSource.on(TestServers.postgres(), "fg_clockstep");
        FenceguardMigrations.migrate(database);
        database.execute("CREATE TABLE accounts (id TEXT PRIMARY KEY, balance BIGINT NOT NULL, current_token BIGINT)");
        database.execute("INSERT INTO accounts (id, balance) VALUES ('1', 0)");
        fenced = FencedDataSource.wrap(database, FencingConfig.builder().fence("accounts").build());
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.shutdown();
        }
        if (redis != null) {
            redis.close();
        }
        if (clock != null) {
            clock.close();
        }
        if (database != null) {
            database.close();
        }
    }

    @Test
    void withTheDurableEpochNoTokenAfterTheLossIsLowerAndTheStaleWriteIsRefused() throws Exception {
        JdbcTokenEpochSource epochs = JdbcTokenEpochSource.of(database,
                database.space().schema() + ".fenceguard_token_epoch", Duration.ofSeconds(5));
        Outcome outcome = run(RedisClients.fastRedis().tokenEpochSource(epochs).build());
        System.out.printf("durable epoch: max token before %d, after the step and FLUSHALL %s; %d at or below; "
                + "stale write %s%n", outcome.maxBefore, outcome.after, outcome.atOrBelow(), outcome.staleWrite);

        assertThat(outcome.atOrBelow()).as("tokens after the loss at or below one before it").isZero();
        assertThat((Throwable) outcome.staleWrite).isInstanceOf(StaleTokenException.class);
        assertThat(outcome.balance).as("B's write stands").isEqualTo(200);
    }

    @Test
    void withTheClockFloorTheSameRunReissuesLowerTokensAndTheStaleWriteOverwrites() throws Exception {
        Outcome outcome = run(RedisClients.fastRedis().build());
        System.out.printf("clock floor: max token before %d, after the step and FLUSHALL %s; %d at or below; "
                + "stale write %s%n", outcome.maxBefore, outcome.after, outcome.atOrBelow(),
                outcome.staleWrite == null ? "admitted" : outcome.staleWrite);

        assertThat(outcome.atOrBelow()).as("the clock floor rests on a clock that went back").isEqualTo(outcome.after.size());
        assertThat((Throwable) outcome.staleWrite).as("A's stale write").isNull();
        assertThat(outcome.balance).as("A overwrote B's newer row").isEqualTo(100);
    }

    private Outcome run(RedisLeaseConfig redisConfig) throws Exception {
        LeaseConfig leases = LeaseConfig.builder().leaseTime(Duration.ofSeconds(30)).build();
        LeaseManager a = LeaseManager.of(RedisLeaseProvider.of(RedissonScriptClient.of(client), redisConfig), leases);
        LeaseManager b = LeaseManager.of(RedisLeaseProvider.of(RedissonScriptClient.of(client), redisConfig), leases);
        try {
            long maxBefore = 0;
            for (int i = 0; i < 20; i++) {
                try (Lease lease = b.acquire(RESOURCE, Duration.ofSeconds(2))) {
                    maxBefore = Math.max(maxBefore, lease.token().value());
                }
            }
            Lease stale = a.acquire(RESOURCE, Duration.ofSeconds(2));      // A: granted, then stalls
            maxBefore = Math.max(maxBefore, stale.token().value());

            clock.shiftBy(STEP_BACK);
            redis.flushAll();

            List<Long> after = new ArrayList<>();
            try (Lease newer = b.acquire(RESOURCE, Duration.ofSeconds(2))) { // B: granted after the loss, writes
                after.add(newer.token().value());
                write(newer, 200);
            }
            for (int i = 0; i < 19; i++) {
                try (Lease lease = b.acquire(RESOURCE, Duration.ofSeconds(2))) {
                    after.add(lease.token().value());
                }
            }

            assertThat(stale.isValid()).as("A still believes in its lease").isTrue();
            SQLException staleWrite = null;
            try {
                write(stale, 100);                                            // A wakes up and writes
            } catch (SQLException e) {
                staleWrite = e;
            }
            stale.close();
            return new Outcome(maxBefore, after, staleWrite, balance());
        } finally {
            a.close();
            b.close();
        }
    }

    private void write(Lease lease, long balance) throws SQLException {
        try (LeaseContext.Scope scope = LeaseContext.bind(lease);
             Connection c = fenced.getConnection();
             PreparedStatement ps = c.prepareStatement("UPDATE accounts SET balance = ? WHERE id = ?")) {
            ps.setLong(1, balance);
            ps.setString(2, "1");
            ps.executeUpdate();
        }
    }

    private long balance() throws SQLException {
        try (Connection c = database.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT balance FROM accounts WHERE id = '1'");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private record Outcome(long maxBefore, List<Long> after, SQLException staleWrite, long balance) {
        long atOrBelow() {
            return after.stream().filter(t -> t <= maxBefore).count();
        }
    }
}
