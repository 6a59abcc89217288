package io.fenceguard.zookeeper.bench;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.test.support.bench.PairedLockBenchmark;
import io.fenceguard.zookeeper.ZooKeeperLeaseConfig;
import io.fenceguard.zookeeper.ZooKeeperLeaseProvider;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;

/**
 * Acquire + release on ZooKeeper: fenceguard's provider (through {@link LeaseManager}) against Curator's
 * {@link InterProcessMutex}, on one in-JVM {@link TestingServer} and one Curator client. Both create an
 * ephemeral sequential node, list the children and delete the node: the difference is what fenceguard
 * adds (the token from the node's stat, the lease bookkeeping).
 *
 * <pre>./mvnw -B -pl guard-zookeeper -am -Dbench=zookeeper -DskipTests verify</pre>
 */
public final class ZooKeeperLeaseBenchmark {

    private static volatile long sink;

    public static void main(String[] args) {
        PairedLockBenchmark.runAndExit("ZooKeeper lease benchmark", ZooKeeperLeaseBenchmark::measure);
    }

    private static boolean measure() throws Exception {
        try (TestingServer server = new TestingServer(true);
             CuratorFramework client = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(100))) {
            client.start();
            client.blockUntilConnected(30, TimeUnit.SECONDS);
            System.out.println("ZooKeeper: in-JVM TestingServer at " + server.getConnectString());
            Map<String, InterProcessMutex> mutexes = new ConcurrentHashMap<>();
            try (ZooKeeperLeaseProvider provider = ZooKeeperLeaseProvider.of(client, new ZooKeeperLeaseConfig("/bench/fenceguard"));
                 LeaseManager manager = LeaseManager.of(provider)) {
                return PairedLockBenchmark.named("ZooKeeper, acquire + release")
                        .anchor("Curator InterProcessMutex", resource -> {
                            InterProcessMutex mutex = mutexes.computeIfAbsent(resource,
                                    r -> new InterProcessMutex(client, "/bench/curator/" + r));
                            if (!mutex.acquire(10, TimeUnit.SECONDS)) {
                                throw new IllegalStateException("not acquired: " + resource);
                            }
                            mutex.release();
                        })
                        .measure("fenceguard ZooKeeperLeaseProvider", resource -> {
                            try (Lease lease = manager.acquire(resource, Duration.ofSeconds(10))) {
                                sink += lease.token().value();
                            }
                        })
                        .measure("fenceguard ZooKeeperLeaseProvider, shared", resource -> {
                            try (Lease lease = manager.acquireShared(resource, Duration.ofSeconds(10))) {
                                sink += lease.token().value();
                            }
                        })
                        .run();
            }
        }
    }
}
