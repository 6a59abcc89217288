package io.fenceguard.spring.boot.autoconfigure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.spring.boot.autoconfigure.core.FenceguardLeaseAutoConfiguration;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.StaleTokenException;
import io.fenceguard.redis.JdbcTokenEpochSource;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.test.support.RedisProcess;
import io.fenceguard.test.support.ScratchSpace;
import io.fenceguard.test.support.TestServers;
import io.fenceguard.test.support.faults.ClockShim;
import io.fenceguard.test.support.faults.ShiftedClock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The starter's default configuration (a DataSource, no fenceguard.redis.* property) keeps a stale write out after a
 * {@code FLUSHALL} of the lock store together with a 60 s step back of the Redis server's clock: a redis-server of
 * the test's own under the clock shim, two applications (holders A and B) started by the auto-configuration, and a
 * PostgreSQL row fenced by fenceguard-jdbc. The same run with {@code fenceguard.redis.token-epoch=clock} lets A's
 * stale write overwrite B's, which shows that the run can fail.
 */
class DefaultTokensAfterClockStepTest {

    private static final String RESOURCE = "account:1";

    private ShiftedClock clock;
    private RedisProcess redis;
    private RedissonClient client;
    private ScratchSpace space;
    private PGSimpleDataSource database;
    private DataSource fenced;

    @BeforeEach
    void start() throws SQLException {
        ClockShim.assumeAvailable();
        clock = ShiftedClock.create();
        redis = RedisProcess.start(clock);
        Config config = new Config();
        config.useSingleServer().setAddress(redis.uri());
        client = Redisson.create(config);
        space = ScratchSpace.create(TestServers.postgres(), "fg_boot_step");
        database = new PGSimpleDataSource();
        database.setURL(space.jdbcUrl());
        database.setUser(space.server().user());
        database.setPassword(space.server().password());
        database.setCurrentSchema(space.schema());
        FenceguardMigrations.migrate(database);
        try (Connection c = database.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE accounts (id TEXT PRIMARY KEY, balance BIGINT NOT NULL, current_token BIGINT)");
            s.execute("INSERT INTO accounts (id, balance) VALUES ('1', 0)");
        }
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
        if (space != null) {
            space.close();
        }
    }

    private ApplicationContextRunner application() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(FenceguardRedisAutoConfiguration.class,
                        FenceguardLeaseAutoConfiguration.class))
                .withBean(RedissonClient.class, () -> client)
                .withBean(DataSource.class, () -> database);
    }

    @Test
    void withTheDefaultConfigurationTheStaleWriteIsRefusedAtJdbc() {
        AtomicReference<Outcome> outcome = new AtomicReference<>();
        application().run(a -> application().run(b -> {
            assertThat(a.getBean(RedisLeaseProvider.class).config().tokenEpochSource())
                    .isInstanceOf(JdbcTokenEpochSource.class);
            outcome.set(run(a.getBean(LeaseManager.class), b.getBean(LeaseManager.class)));
        }));
        System.out.printf("default: token before %d, after the step and FLUSHALL %d; stale write %s%n",
                outcome.get().staleToken, outcome.get().newerToken, outcome.get().staleWrite);

        assertThat(outcome.get().newerToken).isGreaterThan(outcome.get().staleToken);
        assertThat((Throwable) outcome.get().staleWrite).isInstanceOf(StaleTokenException.class);
        assertThat(outcome.get().balance).as("B's write stands").isEqualTo(200);
    }

    @Test
    void withTheClockFloorAskedForTheSameRunLetsTheStaleWriteThrough() {
        AtomicReference<Outcome> outcome = new AtomicReference<>();
        ApplicationContextRunner onClock = application().withPropertyValues("fenceguard.redis.token-epoch=clock");
        onClock.run(a -> onClock.run(b -> {
            assertThat(a.getBean(RedisLeaseProvider.class).config().tokenEpochSource()).isNull();
            outcome.set(run(a.getBean(LeaseManager.class), b.getBean(LeaseManager.class)));
        }));
        System.out.printf("clock floor: token before %d, after the step and FLUSHALL %d; stale write %s%n",
                outcome.get().staleToken, outcome.get().newerToken,
                outcome.get().staleWrite == null ? "admitted" : outcome.get().staleWrite);

        assertThat(outcome.get().newerToken).as("the clock went back").isLessThan(outcome.get().staleToken);
        assertThat((Throwable) outcome.get().staleWrite).as("A's stale write").isNull();
        assertThat(outcome.get().balance).as("A overwrote B's newer row").isEqualTo(100);
    }

    private Outcome run(LeaseManager a, LeaseManager b) throws Exception {
        for (int i = 0; i < 5; i++) {
            try (Lease lease = b.acquire(RESOURCE, Duration.ofSeconds(2))) {
                assertThat(lease.token().value()).isPositive();
            }
        }
        Lease stale = a.acquire(RESOURCE, Duration.ofSeconds(2));     // A: granted, then stalls
        clock.shiftBy(Duration.ofSeconds(-60));
        redis.flushAll();
        long newerToken;
        try (Lease newer = b.acquire(RESOURCE, Duration.ofSeconds(2))) { // B: granted after the loss, writes
            newerToken = newer.token().value();
            write(newer, 200);
        }
        assertThat(stale.isValid()).as("A still believes in its lease").isTrue();
        SQLException staleWrite = null;
        try {
            write(stale, 100);                                          // A wakes up and writes
        } catch (SQLException e) {
            staleWrite = e;
        }
        stale.close();
        return new Outcome(stale.token().value(), newerToken, staleWrite, balance());
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

    private record Outcome(long staleToken, long newerToken, SQLException staleWrite, long balance) {
    }
}
