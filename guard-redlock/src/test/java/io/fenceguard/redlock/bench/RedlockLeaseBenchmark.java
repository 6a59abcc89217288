package io.fenceguard.redlock.bench;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.redlock.RedlockLeaseProvider;
import io.fenceguard.test.support.RedisProcess;
import io.fenceguard.test.support.bench.PairedLockBenchmark;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.redisson.Redisson;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Acquire + release over three independent Redis masters: fenceguard's Redlock provider (through
 * {@link LeaseManager}) against Redisson's {@link RedissonRedLock} (deprecated in Redisson, still in
 * 4.7.0) on the same three clients, with one Redisson {@code RLock} on a single master as the floor of
 * a one-server lock. fenceguard's lock takes two steps per attempt (lock, then commit the token), each
 * sent to the three masters at once; RedissonRedLock locks them one after the other.
 *
 * <pre>./mvnw -B -pl guard-redlock -am -Dbench=redlock -DskipTests verify</pre>
 */
public final class RedlockLeaseBenchmark {

    private static volatile long sink;

    public static void main(String[] args) {
        PairedLockBenchmark.runAndExit("Redlock lease benchmark", RedlockLeaseBenchmark::measure);
    }

    private static boolean measure() {
        List<RedisProcess> servers = new ArrayList<>();
        List<RedissonClient> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                RedisProcess server = RedisProcess.start();
                servers.add(server);
                Config config = new Config();
                config.useSingleServer().setAddress(server.uri());
                clients.add(Redisson.create(config));
            }
            System.out.println("Redis masters: " + servers.stream().map(RedisProcess::uri).toList() + ", "
                    + servers.get(0).call("INFO", "server").toString().lines()
                    .filter(l -> l.startsWith("redis_version:")).findFirst().orElse("?"));
            try (RedlockLeaseProvider provider = RedlockLeaseProvider.of(clients);
                 LeaseManager manager = LeaseManager.of(provider)) {
                return PairedLockBenchmark.named("Redlock over 3 masters, acquire + release")
                        .anchor("Redisson RedissonRedLock (3 masters)", resource -> {
                            RLock[] locks = new RLock[clients.size()];
                            for (int i = 0; i < locks.length; i++) {
                                locks[i] = clients.get(i).getLock("bench:redlock:" + resource);
                            }
                            RedissonRedLock lock = new RedissonRedLock(locks);
                            lock.lock();
                            lock.unlock();
                        })
                        .measure("fenceguard RedlockLeaseProvider (3 masters)", resource -> {
                            try (Lease lease = manager.acquire(resource, Duration.ofSeconds(10))) {
                                sink += lease.token().value();
                            }
                        })
                        .measure("Redisson RLock (1 master, for reference)", resource -> {
                            RLock lock = clients.get(0).getLock("bench:rlock:" + resource);
                            lock.lock();
                            lock.unlock();
                        })
                        .run();
            }
        } finally {
            clients.forEach(RedissonClient::shutdown);
            servers.forEach(RedisProcess::close);
        }
    }
}
