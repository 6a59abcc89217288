package io.fenceguard.spring.integration;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.FencingRefusedException;
import io.fenceguard.jdbc.StaleTokenException;
import io.fenceguard.redis.RedisLeaseConfig;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.TestServers;
import io.fenceguard.test.support.faults.PausableLeaseProvider;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Leader election with Spring Integration's {@link LockRegistryLeaderInitiator} on two instances (locks on
 * Redis), the leader writing a PostgreSQL row through a fenced DataSource: the leader's writes carry its
 * token; when the leader pauses and loses its lease, leadership passes to the other instance and the old
 * leader's writes are refused, in the process (lease lost) and by the database (stale token).
 */
class LeaderElectionTest {

    private static final String TABLE = "fg_si_leader_row";
    private static RedissonClient redisson;
    private static DataSource raw;
    private static DataSource fenced;

    @BeforeAll
    static void servers() throws SQLException {
        Config config = new Config();
        config.useSingleServer().setAddress(TestServers.redis().uri()).setTimeout(2_000);
        redisson = Redisson.create(config);
        JdbcEndpoint pg = TestServers.postgres();
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(pg.url());
        dataSource.setUser(pg.user());
        dataSource.setPassword(pg.password());
        raw = dataSource;
        FenceguardMigrations.migrate(raw);
        try (Connection c = raw.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + TABLE);
            s.execute("CREATE TABLE " + TABLE + " (id INT PRIMARY KEY, leader VARCHAR(8), current_token BIGINT)");
            s.execute("INSERT INTO " + TABLE + " VALUES (1, NULL, NULL)");
        }
        fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence(TABLE).build());
    }

    @AfterAll
    static void close() {
        redisson.shutdown();
    }

    /** A candidate that records, on the initiator's thread, the lease it was granted under. */
    static final class Recorder extends DefaultCandidate {
        final BlockingQueue<Fence> granted = new LinkedBlockingQueue<>();
        final BlockingQueue<String> revoked = new LinkedBlockingQueue<>();
        volatile Lease lease;

        Recorder(String id, String role) {
            super(id, role);
        }

        @Override
        public void onGranted(Context context) {
            lease = LeaseContext.requireValid();
            granted.add(lease.fence());
        }

        @Override
        public void onRevoked(Context context) {
            revoked.add(getId());
        }
    }

    @Test
    void leadershipPassesWhenTheLeaderLosesItsLeaseAndTheOldLeadersWritesAreRefused() throws Exception {
        String role = "ledger-" + UUID.randomUUID().toString().substring(0, 8);
        RedisLeaseConfig redis = RedisLeaseConfig.builder().lockDelay(Duration.ofMillis(200)).build();
        LeaseConfig leaseConfig = LeaseConfig.builder().leaseTime(Duration.ofSeconds(1)).build();
        PausableLeaseProvider providerA = PausableLeaseProvider.wrap(RedisLeaseProvider.of(RedissonScriptClient.of(redisson), redis));
        try (LeaseManager managerA = LeaseManager.of(providerA, leaseConfig);
             LeaseManager managerB = LeaseManager.of(RedisLeaseProvider.of(RedissonScriptClient.of(redisson), redis), leaseConfig)) {
            Recorder a = new Recorder("a", role);
            Recorder b = new Recorder("b", role);
            LockRegistryLeaderInitiator initiatorA = initiator(FenceguardLockRegistry.of(managerA), a);
            initiatorA.start();
            Fence fenceA = a.granted.poll(10, TimeUnit.SECONDS);
            assertThat(fenceA).as("A leads").isNotNull();
            LockRegistryLeaderInitiator initiatorB = initiator(FenceguardLockRegistry.of(managerB), b);
            initiatorB.start();
            try {
                writeAs("a", a.lease);
                assertThat(rowToken()).isEqualTo(fenceA.token().value());
                assertThat(b.granted.poll(700, TimeUnit.MILLISECONDS)).as("B waits while A leads").isNull();

                // A freezes (a long pause: no renewals, and its initiator's tries do not reach Redis either):
                // its lease runs out and B is elected.
                providerA.pauseHolder(fenceA.resource(), Duration.ofSeconds(30));
                Fence fenceB = b.granted.poll(10, TimeUnit.SECONDS);
                assertThat(fenceB).as("B leads after A's lease ran out").isNotNull();
                assertThat(fenceB.token().isNewerThan(fenceA.token())).isTrue();
                assertThat(a.revoked.poll(10, TimeUnit.SECONDS)).as("A was told it no longer leads").isEqualTo("a");
                writeAs("b", b.lease);
                assertThat(rowToken()).isEqualTo(fenceB.token().value());

                // A's leader work, still running with the lease it was granted, is refused in the process...
                assertThatThrownBy(() -> writeAs("a", a.lease)).isInstanceOfSatisfying(FencingRefusedException.class,
                        e -> assertThat(e.reason()).isEqualTo(FencingRefusedException.Reason.LEASE_LOST));
                // ...and a write of A's that got past that check (its token already on the wire) by PostgreSQL.
                assertThatThrownBy(() -> writeAs("a", Lease.presented(fenceA, "a-in-flight")))
                        .isInstanceOf(StaleTokenException.class).hasMessageContaining(TABLE);
                assertThat(rowLeader()).isEqualTo("b");
            } finally {
                initiatorB.stop();
                initiatorA.stop();
                initiatorA.destroy();
                initiatorB.destroy();
            }
        }
    }

    private static LockRegistryLeaderInitiator initiator(FenceguardLockRegistry registry, Recorder candidate) {
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, candidate);
        initiator.setHeartBeatMillis(200);
        initiator.setBusyWaitMillis(50);
        return initiator;
    }

    private static void writeAs(String leader, Lease lease) throws SQLException {
        try (LeaseContext.Scope scope = LeaseContext.bind(lease);
             Connection c = fenced.getConnection();
             PreparedStatement ps = c.prepareStatement("UPDATE " + TABLE + " SET leader = ? WHERE id = 1")) {
            ps.setString(1, leader);
            ps.executeUpdate();
        }
    }

    private static long rowToken() throws SQLException {
        try (Connection c = raw.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_token FROM " + TABLE + " WHERE id = 1")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String rowLeader() throws SQLException {
        try (Connection c = raw.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT leader FROM " + TABLE + " WHERE id = 1")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
