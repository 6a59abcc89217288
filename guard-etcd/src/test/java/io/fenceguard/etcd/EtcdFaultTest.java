package io.fenceguard.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.Client;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.StaleTokenException;
import io.fenceguard.test.support.LedgerTable;
import io.fenceguard.test.support.ScratchSpace;
import io.fenceguard.test.support.TestServers;
import io.fenceguard.test.support.faults.PausableLeaseProvider;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

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
            DataSource raw = space.dataSource();
            FenceguardMigrations.migrate(raw);
            LedgerTable.create(raw);
            DataSource fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence(LedgerTable.NAME).build());
            String resource = "ledger:1";

            PausableLeaseProvider paused = PausableLeaseProvider.wrap(EtcdLeaseProvider.of(client, EtcdCluster.CONFIG));
            try (LeaseManager first = LeaseManager.of(paused, LEASE);
                 LeaseManager second = LeaseManager.of(EtcdLeaseProvider.of(client, EtcdCluster.CONFIG), LEASE)) {
                Lease old = first.acquire(resource, Duration.ofSeconds(5));
                try (LeaseContext.Scope scope = LeaseContext.bind(old)) {
                    assertThat(LedgerTable.setBalance(fenced, 90)).isEqualTo(1);
                }
                paused.pauseAllRenewals(Duration.ofHours(1)); // a long GC pause: no more keep-alives

                // etcd expires the paused holder's lease and deletes its key; the next holder gets in.
                // etcd expires the paused holder's lease and deletes its key; the next holder gets in; the paused
                // holder wakes and writes with its old token: the database refuses it.
                LedgerTable.assertOnlyTheNextHolderWrites(raw, fenced, old,
                        () -> second.acquire(resource, Duration.ofSeconds(15)), StaleTokenException.class);
                old.close();
            }
        }
    }
}
