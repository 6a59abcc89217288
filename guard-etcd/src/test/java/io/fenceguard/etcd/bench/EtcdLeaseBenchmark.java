package io.fenceguard.etcd.bench;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.lock.LockResponse;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.etcd.EtcdCluster;
import io.fenceguard.etcd.EtcdLeaseConfig;
import io.fenceguard.etcd.EtcdLeaseProvider;
import io.fenceguard.test.support.bench.PairedLockBenchmark;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Acquire + release on a three-member etcd cluster of its own: fenceguard's provider (through {@link LeaseManager})
 * against etcd's own lock service used directly through jetcd's Lock client. Both grant an etcd lease of the same
 * time, take the lock on it and give both back; etcd's lock returns no token the resource could check.
 *
 * <pre>./mvnw -B -pl guard-etcd -am -Dbench=etcd -DskipTests verify</pre>
 */
public final class EtcdLeaseBenchmark {

    private static volatile long sink;

    public static void main(String[] args) {
        PairedLockBenchmark.runAndExit("etcd lease benchmark", EtcdLeaseBenchmark::measure);
    }

    private static boolean measure() throws Exception {
        try (EtcdCluster cluster = EtcdCluster.start(3); Client client = cluster.client()) {
            System.out.println("etcd: three members at " + cluster.endpoints());
            long ttl = 10;
            try (EtcdLeaseProvider provider = EtcdLeaseProvider.of(client,
                    new EtcdLeaseConfig("bench/fenceguard/", Duration.ofSeconds(5)));
                 LeaseManager manager = LeaseManager.of(provider,
                         LeaseConfig.builder().leaseTime(Duration.ofSeconds(ttl)).build())) {
                return PairedLockBenchmark.named("etcd, acquire + release")
                        .anchor("jetcd Lock client", resource -> {
                            long lease = client.getLeaseClient().grant(ttl).get(10, TimeUnit.SECONDS).getID();
                            LockResponse lock = client.getLockClient()
                                    .lock(ByteSequence.from("bench/jetcd/" + resource, StandardCharsets.UTF_8), lease)
                                    .get(10, TimeUnit.SECONDS);
                            client.getLockClient().unlock(lock.getKey()).get(10, TimeUnit.SECONDS);
                            client.getLeaseClient().revoke(lease).get(10, TimeUnit.SECONDS);
                        })
                        .measure("fenceguard EtcdLeaseProvider", resource -> {
                            try (Lease lease = manager.acquire(resource, Duration.ofSeconds(10))) {
                                sink += lease.token().value();
                            }
                        })
                        .measure("fenceguard EtcdLeaseProvider, shared", resource -> {
                            try (Lease lease = manager.acquireShared(resource, Duration.ofSeconds(10))) {
                                sink += lease.token().value();
                            }
                        })
                        .run();
            }
        }
    }
}
