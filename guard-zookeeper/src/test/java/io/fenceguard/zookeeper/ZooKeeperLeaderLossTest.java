package io.fenceguard.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseRequest;
import io.fenceguard.zookeeper.internal.NodeNames;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.client.FourLetterWordMain;
import org.junit.jupiter.api.Test;

/** The leader of a three-server ensemble dies: sessions survive, leases too, and later tokens are greater. */
class ZooKeeperLeaderLossTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    void aLeaderLossKeepsTheLeaseAndTheNewEpochGivesGreaterTokens() throws Exception {
        ResourceName resource = ResourceName.of("zk:leader/" + UUID.randomUUID());
        String dir = ZKPaths.makePath(ZooKeeperLeaseConfig.DEFAULT_BASE_PATH, NodeNames.encode(resource));
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (TestingCluster cluster = new TestingCluster(3)) {
            cluster.start();
            CuratorFramework holderClient = ZooKeepers.client(cluster.getConnectString(), 20_000);
            CuratorFramework waiterClient = ZooKeepers.client(cluster.getConnectString(), 20_000);
            try (ZooKeeperLeaseProvider holder = ZooKeeperLeaseProvider.of(holderClient);
                    ZooKeeperLeaseProvider waiter = ZooKeeperLeaseProvider.of(waiterClient);
                    LeaseManager manager = LeaseManager.of(holder, LeaseConfig.builder().leaseTime(LEASE).build())) {
                Lease lease = manager.acquire(resource, Duration.ofSeconds(10));
                CountDownLatch lost = new CountDownLatch(1);
                lease.onLost((l, why) -> lost.countDown());
                Future<Grant> next = pool.submit(() -> waiter.acquire(new LeaseRequest(resource, "next", LEASE),
                        Duration.ofSeconds(60)));
                await(() -> holderClient.getChildren().forPath(dir).size() == 2);

                InstanceSpec leader = leader(cluster).orElseThrow();
                assertThat(cluster.killServer(leader)).isTrue();
                await(() -> cluster.getInstances().stream().filter(s -> !s.equals(leader))
                        .anyMatch(s -> mode(s).contains("leader")));

                // SUSPENDED while the ensemble elected a new leader is not a loss: the session lived on.
                await(() -> holderClient.getChildren().forPath(dir).size() == 2);
                assertThat(lost.getCount()).isEqualTo(1);
                assertThat(lease.isValid()).isTrue();
                assertThat(next.isDone()).isFalse();

                lease.close();
                Grant second = next.get(30, TimeUnit.SECONDS);
                assertThat(second.token()).isGreaterThan(lease.token());
                waiter.release(new LeaseRequest(resource, "next", LEASE), second);
                // A node created under the new leader carries its epoch, above the old one, in the high bits.
                try (Lease third = manager.acquire(resource, Duration.ofSeconds(10))) {
                    assertThat(third.token()).isGreaterThan(second.token());
                    assertThat(third.token().value() >>> 32).isGreaterThan(lease.token().value() >>> 32);
                }
            } finally {
                pool.shutdownNow();
                ZooKeepers.close(waiterClient);
                ZooKeepers.close(holderClient);
            }
        }
    }

    private static Optional<InstanceSpec> leader(TestingCluster cluster) {
        return cluster.getInstances().stream().filter(s -> mode(s).contains("Mode: leader")).findFirst();
    }

    private static String mode(InstanceSpec server) {
        try {
            return FourLetterWordMain.send4LetterWord("127.0.0.1", server.getPort(), "srvr");
        } catch (Exception e) {
            return "";
        }
    }

    private interface Check {
        boolean holds() throws Exception;
    }

    private static void await(Check check) throws Exception {
        // Generous: an election among three in-JVM servers on a loaded machine has taken more than 30 s.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                if (check.holds()) {
                    return;
                }
            } catch (Exception notYet) {
                // The ensemble may be electing: ask again.
            }
            assertThat(System.nanoTime()).as("condition within 60 s").isLessThan(deadline);
            Thread.sleep(50);
        }
    }
}
