package io.fenceguard.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Release requests between two managers, each on a Curator client and provider of its own as in two processes: the
 * holder hears each request with its own reason and decides; a resource nobody holds says so; a released lease
 * hears nothing more.
 */
class ZooKeeperReleaseRequestTest {

    private static final LeaseConfig LEASE = LeaseConfig.builder().leaseTime(Duration.ofSeconds(10)).build();

    private static TestingServer server;
    private static CuratorFramework holderClient;
    private static CuratorFramework askerClient;

    @BeforeAll
    static void startServer() {
        server = ZooKeepers.server();
        holderClient = ZooKeepers.client(server.getConnectString());
        askerClient = ZooKeepers.client(server.getConnectString());
    }

    @AfterAll
    static void stopServer() {
        ZooKeepers.close(holderClient);
        ZooKeepers.close(askerClient);
        ZooKeepers.close(server);
    }

    @Test
    void theHolderInAnotherProcessIsToldAndReleasesSoThatTheAskingOneGetsTheLease() throws Exception {
        String resource = "report:" + UUID.randomUUID();
        try (LeaseManager holder = LeaseManager.of(ZooKeeperLeaseProvider.of(holderClient), LEASE);
             LeaseManager asker = LeaseManager.of(ZooKeeperLeaseProvider.of(askerClient), LEASE)) {
            Lease lease = holder.acquire(resource, Duration.ofSeconds(5));
            CompletableFuture<String> told = new CompletableFuture<>();
            lease.onReleaseRequested((l, reason) -> {
                told.complete(reason);
                l.close();
            });

            assertThat(asker.requestRelease(resource, "rebuild of the monthly report")).isTrue();
            assertThat(told.get(5, TimeUnit.SECONDS)).isEqualTo("rebuild of the monthly report");
            try (Lease next = asker.acquire(resource, Duration.ofSeconds(5))) {
                assertThat(next.token()).isGreaterThan(lease.token());
            }
        }
    }

    @Test
    void eachRequestIsToldWithItsReasonWhileHeldAndNoneAfterTheRelease() throws Exception {
        String resource = "report:" + UUID.randomUUID();
        try (LeaseManager holder = LeaseManager.of(ZooKeeperLeaseProvider.of(holderClient), LEASE);
             LeaseManager asker = LeaseManager.of(ZooKeeperLeaseProvider.of(askerClient), LEASE)) {
            assertThat(asker.requestRelease(resource, "nobody holds it")).isFalse();

            Lease lease = holder.acquire(resource, Duration.ofSeconds(5));
            List<String> told = new CopyOnWriteArrayList<>();
            lease.onReleaseRequested((l, reason) -> told.add(reason));
            assertThat(asker.requestRelease(resource, "first")).isTrue();
            assertThat(asker.requestRelease(resource, "second")).isTrue();
            await(() -> told.size() == 2);
            assertThat(told).containsExactlyInAnyOrder("first", "second");
            assertThat(lease.isValid()).as("the holder decides: it kept the lease").isTrue();

            lease.close();
            assertThat(asker.requestRelease(resource, "after the release")).isFalse();
            Thread.sleep(300);
            assertThat(told).containsExactlyInAnyOrder("first", "second");
        }
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("not within 5 s");
            }
            Thread.sleep(5);
        }
    }
}
