package io.fenceguard.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.test.support.RedisProcess;
import io.fenceguard.test.support.TestServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/** Token rules 1-3 (docs/guide/lock-stores.md) against a real Redis. */
class TokenSemanticsTest {

    private static final int CLIENTS = 4;
    private static final int THREADS_PER_CLIENT = 3;
    private static final int ACQUISITIONS = 1_000;

    private static final List<RedissonClient> clients = new ArrayList<>();

    @BeforeAll
    static void connect() {
        for (int i = 0; i < CLIENTS; i++) {
            clients.add(RedisClients.single(TestServers.redis().uri()));
        }
    }

    @AfterAll
    static void disconnect() {
        clients.forEach(RedissonClient::shutdown);
    }

    @Test
    void tokensStrictlyIncreaseAcrossCompetingThreadsAndClients() throws Exception {
        RedisLeaseConfig config = RedisClients.fastRedis().build();
        LeaseConfig leaseConfig = RedisClients.fastLease().build();
        List<LeaseManager> managers = clients.stream().map(c -> RedisClients.manager(c, config, leaseConfig)).toList();
        String resource = "account:" + System.nanoTime();
        List<Long> tokensInGrantOrder = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger remaining = new AtomicInteger(ACQUISITIONS);
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger inside = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS * THREADS_PER_CLIENT);
        List<Future<?>> workers = new ArrayList<>();
        for (LeaseManager manager : managers) {
            for (int t = 0; t < THREADS_PER_CLIENT; t++) {
                workers.add(pool.submit(() -> {
                    while (remaining.getAndDecrement() > 0) {
                        try (Lease lease = manager.acquire(resource, Duration.ofSeconds(30))) {
                            if (inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            tokensInGrantOrder.add(lease.token().value());
                            inside.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
        }
        for (Future<?> w : workers) {
            w.get();
        }
        pool.shutdown();
        managers.forEach(LeaseManager::close);

        assertThat(overlaps).hasValue(0);
        assertThat(tokensInGrantOrder).hasSize(ACQUISITIONS);
        for (int i = 1; i < tokensInGrantOrder.size(); i++) {
            assertThat(tokensInGrantOrder.get(i))
                    .as("token %d of %d", i, ACQUISITIONS)
                    .isGreaterThan(tokensInGrantOrder.get(i - 1));
        }
    }

    @Test
    void reentryBySameHolderKeepsTheTokenAndReleasesOnlyAtTheOutermostClose() {
        RedisLeaseConfig config = RedisClients.fastRedis().build();
        LeaseConfig leaseConfig = RedisClients.fastLease().build();
        LeaseManager manager = RedisClients.manager(clients.get(0), config, leaseConfig);
        LeaseManager other = RedisClients.manager(clients.get(1), config, leaseConfig);
        String resource = "reentry:" + System.nanoTime();
        try (Lease outer = manager.acquire(resource, Duration.ofSeconds(1))) {
            try (Lease inner = manager.acquire(resource, Duration.ofSeconds(1))) {
                assertThat(inner.token()).isEqualTo(outer.token());
            }
            assertThat(outer.isValid()).isTrue();
            assertThat(other.tryAcquire(resource)).as("still held after the inner close").isEmpty();
            assertThat(manager.heldLeases()).singleElement()
                    .satisfies(held -> assertThat(held.fence()).isEqualTo(outer.fence()));
        }
        assertThat(manager.heldLeases()).isEmpty();
        try (Lease next = other.acquire(resource, Duration.ofSeconds(1))) {
            assertThat(next.token().value()).isGreaterThan(0);
        }
        manager.close();
        other.close();
    }

    @Test
    void reentryFollowsTheContextIntoAnotherThread() throws Exception {
        LeaseManager manager = RedisClients.manager(clients.get(0), RedisClients.fastRedis().build(),
                RedisClients.fastLease().build());
        String resource = "carried:" + System.nanoTime();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (Lease outer = manager.acquire(resource, Duration.ofSeconds(1));
             LeaseContext.Scope scope = LeaseContext.bind(outer)) {
            java.util.concurrent.Callable<FencingToken> task = () -> {
                try (Lease again = manager.acquire(resource, Duration.ofMillis(200))) {
                    return again.token();
                }
            };
            Future<FencingToken> inner = pool.submit(LeaseContext.wrap(task));
            assertThat(inner.get()).isEqualTo(outer.token());
        } finally {
            pool.shutdown();
            manager.close();
        }
    }

    @Test
    void tokenIsMintedInTheSameSingleRoundTripThatTakesTheLock() {
        try (RedisProcess redis = RedisProcess.start()) {
            RedissonClient client = RedisClients.single(redis.uri());
            LeaseManager manager = RedisClients.manager(client, RedisClients.fastRedis().build(),
                    RedisClients.fastLease().build());
            try (Lease warmUp = manager.acquire("warm:up", Duration.ofSeconds(1))) {
                assertThat(warmUp.token().value()).isPositive();
            }
            redis.call("CONFIG", "RESETSTAT");
            Lease lease = manager.acquire("account:1", Duration.ofSeconds(1));
            String stats = String.valueOf(redis.call("INFO", "commandstats"));
            // Command stats count the commands a script runs as well, so the exact picture is: one
            // EVALSHA and the commands of the acquire script on a free resource (EXISTS: the holder's given-up
            // marker), and nothing else.
            java.util.Map<String, Long> calls = new java.util.TreeMap<>();
            stats.lines().filter(l -> l.startsWith("cmdstat_") && !l.startsWith("cmdstat_config"))
                    .forEach(l -> calls.put(l.substring(8, l.indexOf(':')), callsOf(l)));
            assertThat(calls).containsExactlyInAnyOrderEntriesOf(java.util.Map.of(
                    "evalsha", 1L, "hget", 1L, "pttl", 1L, "time", 1L, "get", 1L, "hset", 1L,
                    "pexpire", 1L, "set", 2L, "exists", 1L));
            lease.close();
            manager.close();
            client.shutdown();
        }
    }

    private static long callsOf(String statLine) {
        String calls = statLine.substring(statLine.indexOf("calls=") + 6);
        return Long.parseLong(calls.substring(0, calls.indexOf(',')));
    }
}
