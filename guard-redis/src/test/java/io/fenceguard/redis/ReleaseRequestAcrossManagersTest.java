package io.fenceguard.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.redis.jedis.JedisScriptClient;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.test.support.TestServers;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.redisson.api.RedissonClient;
import redis.clients.jedis.JedisPool;

/**
 * Release requests between two managers, each on a provider of its own as in two processes, through the test Redis:
 * the holder hears the reason and decides; a request for a resource nobody holds says so; a lease released or
 * requests from before a holder listened are never told.
 */
class ReleaseRequestAcrossManagersTest {

    private static final LeaseConfig LEASE = LeaseConfig.builder().leaseTime(Duration.ofSeconds(5)).build();

    private static RedissonClient redisson;
    private static JedisPool jedis;

    @BeforeAll
    static void connect() {
        redisson = RedisClients.single(TestServers.redis().uri());
        jedis = new JedisPool(URI.create(TestServers.redis().uri()));
    }

    @AfterAll
    static void disconnect() {
        if (redisson != null) {
            redisson.shutdown();
        }
        if (jedis != null) {
            jedis.close();
        }
    }

    private static LeaseManager manager(String client, RedisLeaseConfig config) {
        RedisScriptClient scripts = "jedis".equals(client) ? JedisScriptClient.of(jedis) : RedissonScriptClient.of(redisson);
        return LeaseManager.of(RedisLeaseProvider.of(scripts, config), LEASE);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"redisson", "jedis"})
    void theHolderInAnotherManagerIsToldAndReleasesSoThatTheAskingOneGetsTheLease(String client) throws Exception {
        RedisLeaseConfig config = RedisClients.fastRedis().build();
        String resource = "report:" + UUID.randomUUID();
        try (LeaseManager holder = manager(client, config); LeaseManager asker = manager(client, config)) {
            Lease lease = holder.acquire(resource, Duration.ZERO);
            CompletableFuture<String> told = new CompletableFuture<>();
            lease.onReleaseRequested((l, reason) -> {
                told.complete(reason);
                l.close();
            });

            assertThat(asker.tryAcquire(resource)).isEmpty();
            assertThat(asker.requestRelease(resource, "rebuild of the monthly report")).isTrue();
            assertThat(told.get(5, TimeUnit.SECONDS)).isEqualTo("rebuild of the monthly report");
            try (Lease next = asker.acquire(resource, Duration.ofSeconds(3))) {
                assertThat(next.token()).isGreaterThan(lease.token());
                assertThat(lease.isValid()).isFalse();
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"redisson", "jedis"})
    void onlyRequestsSentWhileTheLeaseIsHeldAndListenedForAreTold(String client) throws Exception {
        RedisLeaseConfig config = RedisClients.fastRedis().build();
        String resource = "report:" + UUID.randomUUID();
        try (LeaseManager holder = manager(client, config); LeaseManager asker = manager(client, config)) {
            assertThat(asker.requestRelease(resource, "nobody holds it")).isFalse();

            Lease lease = holder.acquire(resource, Duration.ZERO);
            List<String> told = new CopyOnWriteArrayList<>();
            lease.onReleaseRequested((l, reason) -> told.add(reason));
            assertThat(asker.requestRelease(resource, "first")).isTrue();
            await(() -> told.size() == 1);
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

    private static void await(Supplier<Boolean> condition) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.get()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("not within 5 s");
            }
            Thread.sleep(5);
        }
    }
}
