package io.fenceguard.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseRequest;
import io.fenceguard.test.support.HazelcastCpCluster;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the contract leaves open for FencedLock: fences across members, release from another thread, a client whose
 * shutdown is a loss, bad set-ups.
 */
class HazelcastLeaseProviderTest {

    private static final LeaseConfig LEASE = LeaseConfig.builder().leaseTime(Duration.ofSeconds(10)).build();

    private static HazelcastCpCluster cluster;

    @BeforeAll
    static void start() {
        cluster = HazelcastCpCluster.shared();
    }

    @Test
    void theFenceGrowsAcrossGrantsHoldersAndMembers() {
        String resource = "hz:fence:" + UUID.randomUUID();
        try (HazelcastLeaseProvider first = HazelcastLeaseProvider.of(cluster.member(0));
             HazelcastLeaseProvider second = HazelcastLeaseProvider.of(cluster.member(1));
             HazelcastLeaseProvider third = HazelcastLeaseProvider.of(cluster.member(2));
             LeaseManager a = LeaseManager.of(first, LEASE);
             LeaseManager b = LeaseManager.of(second, LEASE);
             LeaseManager c = LeaseManager.of(third, LEASE)) {
            List<LeaseManager> holders = List.of(a, b, c, a, a, c, b, b, a, c);
            List<Long> tokens = new ArrayList<>();
            for (LeaseManager holder : holders) {
                try (Lease lease = holder.acquire(resource, Duration.ofSeconds(5))) {
                    tokens.add(lease.token().value());
                    // Held on one member, the lock is refused on every other (another CP session).
                    for (LeaseManager other : List.of(a, b, c)) {
                        if (other != holder) {
                            assertThat(other.tryAcquire(resource)).isEmpty();
                        }
                    }
                }
            }
            for (int i = 1; i < tokens.size(); i++) {
                assertThat(tokens.get(i)).as("fence %d", i).isGreaterThan(tokens.get(i - 1));
            }
        }
    }

    /** The lock belongs to the lease's own thread: the thread that releases it may be any other. */
    @Test
    void aLeaseTakenOnOneThreadIsReleasedFromAnother() throws Exception {
        ResourceName resource = ResourceName.of("hz:threads:" + UUID.randomUUID());
        try (HazelcastLeaseProvider provider = HazelcastLeaseProvider.of(cluster.member(0))) {
            LeaseRequest holder = new LeaseRequest(resource, "holder", Duration.ofSeconds(10));
            Grant grant = CompletableFuture.supplyAsync(() -> provider.acquire(holder, Duration.ZERO))
                    .get(10, TimeUnit.SECONDS);
            // Another holder on the caller's thread, of the same member, is kept out: the lock is not this thread's.
            LeaseRequest other = new LeaseRequest(resource, "other", Duration.ofSeconds(10));
            assertThatThrownBy(() -> provider.acquire(other, Duration.ZERO))
                    .isInstanceOf(io.fenceguard.core.LeaseTimeoutException.class);
            assertThat(CompletableFuture.supplyAsync(() -> provider.renew(holder, grant).toCompletableFuture().join())
                    .get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(provider.release(holder, grant)).isTrue();
            Grant next = provider.acquire(other, Duration.ofSeconds(2));
            assertThat(next.token()).isGreaterThan(grant.token());
            assertThat(provider.release(other, next)).isTrue();
        }
    }

    /**
     * A renewal moves the lease's end: the lock outlives its first lease time several times over while renewed, and
     * is given back once the renewals stop.
     */
    @Test
    void aRenewedLeaseKeepsItsLockPastItsFirstLeaseTimeAndLosesItOnceNotRenewed() throws Exception {
        ResourceName resource = ResourceName.of("hz:renewed:" + UUID.randomUUID());
        Duration leaseTime = Duration.ofSeconds(2);
        try (HazelcastLeaseProvider provider = HazelcastLeaseProvider.of(cluster.member(0));
             HazelcastLeaseProvider other = HazelcastLeaseProvider.of(cluster.member(1))) {
            LeaseRequest holder = new LeaseRequest(resource, "holder", leaseTime);
            Grant grant = provider.acquire(holder, Duration.ZERO);
            long until = System.nanoTime() + leaseTime.multipliedBy(3).toNanos();
            while (System.nanoTime() - until < 0) {
                assertThat(provider.renew(holder, grant).toCompletableFuture().get(10, TimeUnit.SECONDS))
                        .as("renewed within its lease time").isTrue();
                TimeUnit.MILLISECONDS.sleep(200);
            }
            LeaseRequest next = new LeaseRequest(resource, "next", Duration.ofSeconds(10));
            assertThatThrownBy(() -> other.acquire(next, Duration.ZERO))
                    .isInstanceOf(io.fenceguard.core.LeaseTimeoutException.class);

            // Not renewed any more: the provider gives the lock back after the lease time, and the next holder gets it.
            Grant taken = other.acquire(next, leaseTime.multipliedBy(5));
            assertThat(taken.token()).isGreaterThan(grant.token());
            assertThat(provider.renew(holder, grant).toCompletableFuture().get(10, TimeUnit.SECONDS)).isFalse();
            assertThat(other.release(next, taken)).isTrue();
        }
    }

    /** '@' names a CP group in Hazelcast: in a resource it is escaped, so the lock stays the resource's own. */
    @Test
    void aResourceWithAnAtSignHasALockOfItsOwnInTheProvidersGroup() {
        String id = UUID.randomUUID().toString();
        try (HazelcastLeaseProvider provider = HazelcastLeaseProvider.of(cluster.member(0));
             LeaseManager manager = LeaseManager.of(provider, LEASE);
             Lease plain = manager.acquire("hz:user:" + id, Duration.ZERO);
             Lease at = manager.acquire("hz:user:" + id + "@default", Duration.ZERO)) {
            assertThat(at.token()).isGreaterThan(plain.token());
            try (LeaseManager other = LeaseManager.of(provider, LEASE)) {
                assertThat(other.tryAcquire("hz:user:" + id + "@default")).isEmpty();
            }
        }
    }

    /** Through a client: it works alike, and the client's shutdown is pushed to its holders as a loss at once. */
    @Test
    void throughAClientWhoseShutdownIsPushedAsALoss() throws Exception {
        String resource = "hz:client:" + UUID.randomUUID();
        ClientConfig config = new ClientConfig();
        config.setClusterName(cluster.name());
        config.setProperty("hazelcast.logging.type", "slf4j");
        InetSocketAddress member = (InetSocketAddress) cluster.member(0).getCluster().getLocalMember().getSocketAddress();
        config.getNetworkConfig().addAddress("127.0.0.1:" + member.getPort());
        HazelcastInstance client = HazelcastClient.newHazelcastClient(config);
        try (HazelcastLeaseProvider provider = HazelcastLeaseProvider.of(client);
             LeaseManager onClient = LeaseManager.of(provider, LEASE);
             LeaseManager onMember = LeaseManager.of(HazelcastLeaseProvider.of(cluster.member(1)), LEASE)) {
            Lease lease = onClient.acquire(resource, Duration.ofSeconds(5));
            CountDownLatch lost = new CountDownLatch(1);
            lease.onLost((l, why) -> lost.countDown());
            assertThat(onMember.tryAcquire(resource)).isEmpty();

            client.shutdown();
            assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(lease.lossReason()).contains(LeaseLossReason.REVOKED);
            // The client's CP session ends with it (closed, or expired after its time to live): the lock is free.
            try (Lease next = onMember.acquire(resource, Duration.ofSeconds(HazelcastCpCluster.SESSION_TTL_SECONDS * 3L))) {
                assertThat(next.token()).isGreaterThan(lease.token());
            }
            lease.close();
        } finally {
            client.getLifecycleService().terminate();
        }
    }

    @Test
    void badConfigurationIsRefusedNamingWhatIsWrong() {
        assertThatThrownBy(() -> new HazelcastLeaseConfig("a@b", "default", Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lockNamePrefix");
        assertThatThrownBy(() -> new HazelcastLeaseConfig("p:", " ", Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cpGroup");
        assertThatThrownBy(() -> new HazelcastLeaseConfig("p:", "default", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("callTimeout");
    }

    /** Without the CP Subsystem, FencedLock runs in Hazelcast's unsafe mode: the provider refuses such a member. */
    @Test
    void aMemberWithoutTheCpSubsystemIsRefused() {
        Config config = new Config();
        config.setClusterName("fenceguard-test-nocp-" + UUID.randomUUID());
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.logging.type", "slf4j");
        config.getNetworkConfig().setPort(0).getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        config.getNetworkConfig().getJoin().getMulticastConfig().setEnabled(false);
        config.getNetworkConfig().getJoin().getAutoDetectionConfig().setEnabled(false);
        HazelcastInstance alone = Hazelcast.newHazelcastInstance(config);
        try {
            assertThatThrownBy(() -> HazelcastLeaseProvider.of(alone)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("cp-member-count").hasMessageContaining("unsafe mode");
        } finally {
            alone.getLifecycleService().terminate();
        }
        assertThatThrownBy(() -> HazelcastLeaseProvider.of(alone)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not running");
    }
}
