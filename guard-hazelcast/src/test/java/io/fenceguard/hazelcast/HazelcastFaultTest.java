package io.fenceguard.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.cp.session.CPSession;
import com.hazelcast.cp.session.CPSessionManagementService;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseRequest;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.StaleTokenException;
import io.fenceguard.test.support.HazelcastCpCluster;
import io.fenceguard.test.support.LedgerTable;
import io.fenceguard.test.support.ScratchSpace;
import io.fenceguard.test.support.TestServers;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Hazelcast under faults, on three CP members and a fourth member that is not in the CP group (it uses the group as a
 * client would), all of their own: the holder's CP session is closed, then the group loses its majority.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HazelcastFaultTest {

    private static final LeaseConfig LEASE = LeaseConfig.builder().leaseTime(Duration.ofSeconds(3)).build();
    private static final HazelcastLeaseConfig FAST = new HazelcastLeaseConfig("fault:", "default", Duration.ofSeconds(1));
    private static final int HOLDER_MEMBER = 3;

    private static HazelcastCpCluster cluster;

    @BeforeAll
    static void start() {
        cluster = HazelcastCpCluster.start(1);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void aHolderWhoseSessionIsClosedLearnsItIsLostAndItsWriteIsRefusedAtTheDatabase() throws Exception {
        try (ScratchSpace space = ScratchSpace.create(TestServers.postgres(), "fg_hz")) {
            DataSource raw = space.dataSource();
            FenceguardMigrations.migrate(raw);
            LedgerTable.create(raw);
            DataSource fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence(LedgerTable.NAME).build());
            String resource = "ledger:1";

            try (LeaseManager first = LeaseManager.of(HazelcastLeaseProvider.of(cluster.member(HOLDER_MEMBER), FAST), LEASE);
                 LeaseManager second = LeaseManager.of(HazelcastLeaseProvider.of(cluster.member(1), FAST), LEASE)) {
                Lease old = first.acquire(resource, Duration.ofSeconds(5));
                CountDownLatch lost = new CountDownLatch(1);
                old.onLost((lease, why) -> lost.countDown());
                try (LeaseContext.Scope scope = LeaseContext.bind(old)) {
                    assertThat(LedgerTable.setBalance(fenced, 90)).isEqualTo(1);
                }

                // An operator (or the session's expiry) closes the holder member's CP session: the group frees its lock.
                CPSessionManagementService sessions = cluster.member(0).getCPSubsystem().getCPSessionManagementService();
                InetSocketAddress holderAddress = (InetSocketAddress) cluster.member(HOLDER_MEMBER).getCluster()
                        .getLocalMember().getSocketAddress();
                CPSession session = sessions.getAllSessions("default").toCompletableFuture().get(10, TimeUnit.SECONDS)
                        .stream().filter(s -> s.endpoint().getPort() == holderAddress.getPort()).findFirst().orElseThrow();
                assertThat(sessions.forceCloseSession("default", session.id()).toCompletableFuture()
                        .get(10, TimeUnit.SECONDS)).isTrue();

                // The holder learns it at its next renewal, well within its lease time.
                assertThat(lost.await(LEASE.leaseTime().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
                assertThat(old.isValid()).isFalse();
                assertThat(old.lossReason()).contains(LeaseLossReason.RENEWAL_REJECTED);

                // The next holder gets in; the old holder writes anyway, with its old token: the database refuses it.
                LedgerTable.assertOnlyTheNextHolderWrites(raw, fenced, old,
                        () -> second.acquire(resource, Duration.ofSeconds(5)), StaleTokenException.class);
                old.close();

                // The member took a new session: its next holder gets the lock, with a greater fence still.
                try (Lease again = first.acquire(resource, Duration.ofSeconds(5))) {
                    assertThat(again.token()).isGreaterThan(old.token());
                }
            }
        }
    }

    /** Two of three CP members gone: every call of the provider still ends within its time, with an error saying so. */
    @Test
    @Order(2)
    void withoutAMajorityEveryWaitHolds() throws Exception {
        ResourceName resource = ResourceName.of("hz:majority:" + UUID.randomUUID());
        try (HazelcastLeaseProvider provider = HazelcastLeaseProvider.of(cluster.member(HOLDER_MEMBER), FAST)) {
            LeaseRequest holder = new LeaseRequest(resource, "holder", Duration.ofSeconds(30));
            Grant grant = provider.acquire(holder, Duration.ofSeconds(5));

            cluster.member(1).getLifecycleService().terminate();
            cluster.member(2).getLifecycleService().terminate();

            long start = System.nanoTime();
            assertThatThrownBy(() -> provider.acquire(new LeaseRequest(ResourceName.of(resource.value() + ":other"),
                    "other", Duration.ofSeconds(30)), Duration.ofMillis(300)))
                    .isInstanceOf(LeaseUnavailableException.class).hasMessageContaining(resource.value());
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("wait 300 ms + call timeout 1 s")
                    .isLessThan(Duration.ofSeconds(3));

            start = System.nanoTime();
            AtomicReference<Throwable> renewal = new AtomicReference<>();
            provider.renew(holder, grant).whenComplete((held, error) -> renewal.set(error))
                    .toCompletableFuture().handle((held, error) -> null).get(5, TimeUnit.SECONDS);
            assertThat(renewal.get()).as("a renewal nobody answered fails: the lease is at risk, not confirmed").isNotNull();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));

            start = System.nanoTime();
            assertThatThrownBy(() -> provider.release(holder, grant)).isInstanceOf(LeaseUnavailableException.class)
                    .hasMessageContaining(resource.value()).hasMessageContaining("background");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
        }
    }
}
