package io.fenceguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.redis.internal.LeaseKeys;
import io.fenceguard.redis.springdata.SpringDataRedisScriptClient;
import io.fenceguard.testsupport.TestServers;
import io.fenceguard.testsupport.contract.LeaseProviderContract;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** The Redis provider on a Spring Data Redis LettuceConnectionFactory passes the contract every provider passes. */
class LettuceLeaseProviderContractTest extends LeaseProviderContract {

    private static final Duration LOCK_DELAY = Duration.ofMillis(300);

    private static LettuceConnectionFactory factory;
    private RedisLeaseConfig config;

    @BeforeAll
    static void connect() {
        factory = SpringDataFactories.lettuce(TestServers.redis().host(), TestServers.redis().port());
        SpringDataFactories.warmUp(factory);
    }

    @AfterAll
    static void disconnect() {
        SpringDataFactories.shutdown(factory);
    }

    @Override
    protected LeaseProvider createProvider() {
        if (config == null) { // one key prefix per test: a second provider of the test shares the first one's keys
            config = RedisClients.fastRedis().lockDelay(LOCK_DELAY).build();
        }
        return RedisLeaseProvider.of(SpringDataRedisScriptClient.of(factory), config);
    }

    @Test
    void describesTheLettucePath() {
        try (LeaseProvider provider = createProvider()) {
            assertThat(provider.describe()).contains("via Spring Data Redis (Lettuce)");
        }
    }

    /** Waiters sleep on the release channel and wake on the release, not when the holder's 30 s are up. */
    @Test
    void waitersWakeOnTheRelease() throws Exception {
        RedisLeaseConfig redis = RedisClients.fastRedis().build();
        LeaseConfig lease = LeaseConfig.builder().leaseTime(Duration.ofSeconds(30)).build();
        try (RedisLeaseProvider holderProvider = RedisLeaseProvider.of(SpringDataRedisScriptClient.of(factory), redis);
             RedisLeaseProvider waiterProvider = RedisLeaseProvider.of(SpringDataRedisScriptClient.of(factory), redis);
             LeaseManager holder = LeaseManager.of(holderProvider, lease);
             LeaseManager waiters = LeaseManager.of(waiterProvider, lease)) {
            ExecutorService threads = Executors.newFixedThreadPool(3);
            try {
                for (int round = 0; round < 3; round++) {
                    String resource = "wake:" + round;
                    Lease held = holder.acquire(resource, Duration.ofSeconds(1));
                    List<Future<Long>> woken = new ArrayList<>();
                    for (int w = 0; w < 3; w++) {
                        woken.add(threads.submit(() -> {
                            try (Lease got = waiters.acquire(resource, Duration.ofSeconds(20))) {
                                long at = System.nanoTime();
                                Thread.sleep(50);
                                return at;
                            }
                        }));
                    }
                    Thread.sleep(300);  // the waiters are asleep on the channel by now
                    long released = System.nanoTime();
                    held.close();
                    for (Future<Long> f : woken) {
                        long after = (f.get(25, TimeUnit.SECONDS) - released) / 1_000_000;
                        assertThat(after).as("ms from the release to a waiter's grant").isLessThan(3_000);
                    }
                }
            } finally {
                threads.shutdownNow();
            }
        }
    }

    /**
     * A closed provider closes the pub/sub connection its release wake-ups opened, and leaves the factory's shared
     * connection open and working: providers opened and closed one after another leave no subscriber behind.
     */
    @Test
    void aClosedProviderClosesItsSubscriberAndLeavesTheFactoryOpen() throws Exception {
        String name = "fg-close-" + UUID.randomUUID().toString().substring(0, 8);
        LettuceConnectionFactory own = SpringDataFactories.lettuce(TestServers.redis().host(), TestServers.redis().port(), name);
        try {
            for (int i = 0; i < 4; i++) {
                String resource = "close:" + i;
                try (RedisLeaseProvider provider = RedisLeaseProvider.of(SpringDataRedisScriptClient.of(own),
                        RedisClients.fastRedis().build());
                     LeaseManager manager = LeaseManager.of(provider)) {
                    try (Lease held = manager.acquire(resource, Duration.ofSeconds(1))) {
                        Future<?> waiter = Executors.newSingleThreadExecutor().submit(
                                () -> manager.acquire(resource, Duration.ofMillis(300)));
                        assertThatThrownBy(() -> waiter.get(5, TimeUnit.SECONDS))
                                .hasCauseInstanceOf(LeaseTimeoutException.class);
                        assertThat(subscribers(own, name)).as("the subscribed connection, provider " + i).isEqualTo(1);
                    }
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                while (subscribers(own, name) > 0 && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertThat(subscribers(own, name)).as("subscribers left after provider " + i + " was closed").isZero();
                try (RedisConnection connection = own.getConnection()) {
                    assertThat(connection.ping()).as("the factory after provider " + i + " was closed").isEqualTo("PONG");
                }
            }
        } finally {
            SpringDataFactories.shutdown(own);
        }
    }

    /** Connections named {@code name} in Redis's CLIENT LIST that are subscribed to a channel. */
    private static long subscribers(LettuceConnectionFactory on, String name) {
        try (RedisConnection connection = on.getConnection()) {
            return connection.serverCommands().getClientList().stream()
                    .filter(c -> name.equals(c.getName()))
                    .filter(c -> !"0".equals(c.get("sub")))
                    .count();
        }
    }

    @Override
    protected Duration expiryWait() {
        return shortLease().plus(LOCK_DELAY).multipliedBy(5);
    }

    @Override
    protected boolean forget(ResourceName resource, Lease lease) {
        try (RedisConnection connection = factory.getConnection()) {
            byte[] key = LeaseKeys.of(config.keyPrefix(), resource).lock().getBytes(StandardCharsets.UTF_8);
            return Long.valueOf(1).equals(connection.keyCommands().del(key));
        }
    }
}
