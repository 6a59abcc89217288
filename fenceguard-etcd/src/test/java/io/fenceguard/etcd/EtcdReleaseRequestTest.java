package io.fenceguard.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.Client;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Release requests between two managers, each on a client and provider of its own as in two processes, through a
 * real etcd: the holder hears each request with its own reason and decides; a resource nobody holds says so; a
 * released lease hears nothing more.
 */
class EtcdReleaseRequestTest {

    private static final LeaseConfig LEASE = LeaseConfig.builder().leaseTime(Duration.ofSeconds(5)).build();

    private static EtcdCluster cluster;
    private static Client holderClient;
    private static Client askerClient;

    @BeforeAll
    static void startCluster() {
        cluster = EtcdCluster.start(1);
        holderClient = cluster.client();
        askerClient = cluster.client();
    }

    @AfterAll
    static void stopCluster() {
        if (holderClient != null) {
            holderClient.close();
        }
        if (askerClient != null) {
            askerClient.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void theHolderInAnotherProcessIsToldAndReleasesSoThatTheAskingOneGetsTheLease() throws Exception {
        String resource = "report:" + UUID.randomUUID();
        try (LeaseManager holder = LeaseManager.of(EtcdLeaseProvider.of(holderClient, EtcdCluster.CONFIG), LEASE);
             LeaseManager asker = LeaseManager.of(EtcdLeaseProvider.of(askerClient, EtcdCluster.CONFIG), LEASE)) {
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
        try (LeaseManager holder = LeaseManager.of(EtcdLeaseProvider.of(holderClient, EtcdCluster.CONFIG), LEASE);
             LeaseManager asker = LeaseManager.of(EtcdLeaseProvider.of(askerClient, EtcdCluster.CONFIG), LEASE)) {
            assertThat(asker.requestRelease(resource, "nobody holds it")).isFalse();

            Lease lease = holder.acquire(resource, Duration.ofSeconds(5));
            List<String> told = new CopyOnWriteArrayList<>();
            lease.onReleaseRequested((l, reason) -> told.add(reason));
            assertThat(asker.requestRelease(resource, "first")).isTrue();
            assertThat(asker.requestRelease(resource, "second")).isTrue();
            await(() -> told.size() == 2);
            assertThat(told).containsExactly("first", "second");
            assertThat(lease.isValid()).as("the holder decides: it kept the lease").isTrue();

            lease.close();
            assertThat(asker.requestRelease(resource, "after the release")).isFalse();
            Thread.sleep(300);
            assertThat(told).containsExactly("first", "second");
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
