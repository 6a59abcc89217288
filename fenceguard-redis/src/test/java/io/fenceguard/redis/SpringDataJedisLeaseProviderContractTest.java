package io.fenceguard.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

/**
 * The Redis provider on a Spring Data Redis JedisConnectionFactory, the generic path (scripts through the factory's
 * blocking connections on the client's threads, release channels on a subscribed connection read by a thread of its
 * own), passes the contract every provider passes.
 */
class SpringDataJedisLeaseProviderContractTest extends LeaseProviderContract {

    private static final Duration LOCK_DELAY = Duration.ofMillis(300);

    private static JedisConnectionFactory factory;
    private RedisLeaseConfig config;

    @BeforeAll
    static void connect() {
        factory = new JedisConnectionFactory(new RedisStandaloneConfiguration(TestServers.redis().host(),
                TestServers.redis().port()));
        factory.afterPropertiesSet();
        factory.start();
    }

    @AfterAll
    static void disconnect() {
        factory.destroy();
    }

    @Override
    protected LeaseProvider createProvider() {
        if (config == null) {
            config = RedisClients.fastRedis().lockDelay(LOCK_DELAY).build();
        }
        return RedisLeaseProvider.of(SpringDataRedisScriptClient.of(factory), config);
    }

    @Test
    void describesTheFactory() {
        try (LeaseProvider provider = createProvider()) {
            assertThat(provider.describe()).contains("via Spring Data Redis (Jedis)");
        }
    }

    /** Waiters sleep on the release channel (a blocking subscription) and wake on the release, not at expiry. */
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
                for (int round = 0; round < 2; round++) {
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
                    Thread.sleep(300);
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
