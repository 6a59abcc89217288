package io.fenceguard.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.Client;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.StaleTokenException;
import io.fenceguard.testsupport.ScratchSpace;
import io.fenceguard.testsupport.TestServers;
import io.fenceguard.testsupport.faults.PausableLeaseProvider;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * etcd under faults, each on a three-member cluster of its own: a member killed, the leader killed, and a
 * holder paused past its lease whose write is then refused by PostgreSQL through row fencing.
 */
class EtcdFaultTest {

    private static final LeaseConfig LEASE = LeaseConfig.builder().leaseTime(Duration.ofSeconds(3)).build();

    private EtcdCluster cluster;
    private Client client;

    @BeforeEach
    void start() {
        cluster = EtcdCluster.start(3);
        client = cluster.client();
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aKilledMemberChangesNothingForHoldersOrWaiters() throws Exception {
        String resource = "fault:member:" + UUID.randomUUID();
        try (EtcdLeaseProvider provider = EtcdLeaseProvider.of(client, EtcdCluster.CONFIG);
             LeaseManager a = LeaseManager.of(provider, LEASE);
             LeaseManager b = LeaseManager.of(EtcdLeaseProvider.of(client, EtcdCluster.CONFIG), LEASE)) {
            Lease held = a.acquire(resource, Duration.ofSeconds(5));
            int follower = (cluster.leader() + 1) % 3;
            cluster.kill(follower);

            // Two lease times later the holder still holds (renewed by the two members left) and keeps others out.
            Thread.sleep(LEASE.leaseTime().multipliedBy(2).toMillis());
            assertThat(held.isValid()).isTrue();
            assertThat(b.tryAcquire(resource)).isEmpty();

            held.close();
            try (Lease next = b.acquire(resource, Duration.ofSeconds(5))) {
                assertThat(next.token()).isGreaterThan(held.token());
            }
        }
    }

    @Test
    void afterTheLeaderIsKilledTheHolderKeepsItAndTheNextTokenIsGreater() throws Exception {
        String resource = "fault:leader:" + UUID.randomUUID();
        try (LeaseManager a = LeaseManager.of(EtcdLeaseProvider.of(client, EtcdCluster.CONFIG), LEASE);
             LeaseManager b = LeaseManager.of(EtcdLeaseProvider.of(client, EtcdCluster.CONFIG), LEASE)) {
            Lease held = a.acquire(resource, Duration.ofSeconds(5));
            int leader = cluster.leader();
            cluster.kill(leader);

            // A new leader is elected within a few election timeouts; etcd extends leases across the election.
            Thread.sleep(LEASE.leaseTime().multipliedBy(2).toMillis());
            assertThat(cluster.leader()).isNotEqualTo(leader);
            if (held.isValid()) {
                assertThat(b.tryAcquire(resource)).as("a second holder while the first is valid").isEmpty();
            }
            held.close();
            try (Lease next = b.acquire(resource, Duration.ofSeconds(10))) {
                assertThat(next.token()).isGreaterThan(held.token());
            }
        }
    }

    @Test
    void aHolderPausedPastItsLeaseIsRefusedAtTheDatabase() throws Exception {
        try (ScratchSpace space = ScratchSpace.create(TestServers.postgres(), "fg_etcd")) {
            PGSimpleDataSource raw = new PGSimpleDataSource();
            raw.setURL(space.jdbcUrl());
            raw.setUser(space.server().user());
            raw.setPassword(space.server().password());
            raw.setCurrentSchema(space.schema());
            FenceguardMigrations.migrate(raw);
            execute(raw, "CREATE TABLE ledger (id INT PRIMARY KEY, balance INT NOT NULL, current_token BIGINT)",
                    "INSERT INTO ledger (id, balance) VALUES (1, 100)");
            DataSource fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence("ledger").build());
            String resource = "ledger:1";

            PausableLeaseProvider paused = PausableLeaseProvider.wrap(EtcdLeaseProvider.of(client, EtcdCluster.CONFIG));
            try (LeaseManager first = LeaseManager.of(paused, LEASE);
                 LeaseManager second = LeaseManager.of(EtcdLeaseProvider.of(client, EtcdCluster.CONFIG), LEASE)) {
                Lease old = first.acquire(resource, Duration.ofSeconds(5));
                try (LeaseContext.Scope scope = LeaseContext.bind(old)) {
                    assertThat(update(fenced, 90)).isEqualTo(1);
                }
                paused.pauseAllRenewals(Duration.ofHours(1)); // a long GC pause: no more keep-alives

                // etcd expires the paused holder's lease and deletes its key; the next holder gets in.
                try (Lease next = second.acquire(resource, Duration.ofSeconds(15));
                     LeaseContext.Scope scope = LeaseContext.bind(next)) {
                    assertThat(next.token()).isGreaterThan(old.token());
                    assertThat(update(fenced, 80)).isEqualTo(1);
                }

                // The paused holder wakes and writes with its old token: the database refuses it.
                try (Lease woken = Lease.presented(old.fence(), "woken-holder");
                     LeaseContext.Scope scope = LeaseContext.bind(woken)) {
                    assertThatThrownBy(() -> update(fenced, 0)).isInstanceOf(StaleTokenException.class)
                            .hasMessageContaining(resource);
                }
                assertThat(balance(raw)).isEqualTo(80);
                old.close();
            }
        }
    }

    private static int update(DataSource dataSource, int balance) throws SQLException {
        try (Connection c = dataSource.getConnection();
             PreparedStatement statement = c.prepareStatement("UPDATE ledger SET balance = ? WHERE id = 1")) {
            statement.setInt(1, balance);
            return statement.executeUpdate();
        }
    }

    private static int balance(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection();
             ResultSet rows = c.createStatement().executeQuery("SELECT balance FROM ledger WHERE id = 1")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    private static void execute(DataSource dataSource, String... statements) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }
}
