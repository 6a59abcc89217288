package io.fenceguard.redis;

import io.fenceguard.redis.jedis.JedisScriptClient;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Lease;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.redis.internal.LeaseKeys;
import io.fenceguard.testsupport.TestServers;
import io.fenceguard.testsupport.contract.LeaseProviderContract;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseTimeoutException;
import java.net.URI;
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
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;

/** The Redis provider on a Jedis pool passes the contract every provider passes, on the test Redis. */
class JedisLeaseProviderContractTest extends LeaseProviderContract {

    private static final Duration LOCK_DELAY = Duration.ofMillis(300);

    private static JedisPool pool;
    private RedisLeaseConfig config;

    @BeforeAll
    static void connect() {
        pool = new JedisPool(URI.create(TestServers.redis().uri()));
    }

    @AfterAll
    static void disconnect() {
        pool.close();
    }

    @Override
    protected LeaseProvider createProvider() {
        if (config == null) { // one key prefix per test: a second provider of the test shares the first one's keys
            config = RedisClients.fastRedis().lockDelay(LOCK_DELAY).build();
        }
        return RedisLeaseProvider.of(JedisScriptClient.of(pool), config);
    }

    /** Waiters sleep on the release channel (one subscribed connection) and wake on the release, not at expiry. */
    @Test
    void waitersWakeOnTheReleaseOverTheSubscribedConnection() throws Exception {
        RedisLeaseConfig redis = RedisClients.fastRedis().build();
        LeaseConfig lease = LeaseConfig.builder().leaseTime(Duration.ofSeconds(30)).build();
        try (RedisLeaseProvider holderProvider = RedisLeaseProvider.of(JedisScriptClient.of(pool), redis);
             RedisLeaseProvider waiterProvider = RedisLeaseProvider.of(JedisScriptClient.of(pool), redis);
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
                        // Three waiters one after the other: each within a second of the release before it,
                        // while the holder's time would have kept them 30 s.
                        assertThat(after).as("ms from the release to a waiter's grant").isLessThan(3_000);
                    }
                }
            } finally {
                threads.shutdownNow();
            }
        }
    }

    /**
     * A closed provider gives the pool back the connection its release wake-ups kept subscribed (and stops its
     * threads): providers opened and closed one after another on a pool of three never drain it.
     */
    @Test
    void aClosedProviderGivesItsSubscribedConnectionBack() throws Exception {
        JedisPoolConfig three = new JedisPoolConfig();
        three.setMaxTotal(3);
        three.setMaxWait(Duration.ofSeconds(2));
        try (JedisPool own = new JedisPool(three, URI.create(TestServers.redis().uri()))) {
            for (int i = 0; i < 6; i++) {
                String resource = "close:" + i;
                try (RedisLeaseProvider provider = RedisLeaseProvider.of(JedisScriptClient.of(own), RedisClients.fastRedis().build());
                     LeaseManager manager = LeaseManager.of(provider)) {
                    try (Lease held = manager.acquire(resource, Duration.ofSeconds(1))) {
                        // Another thread waits for it: the provider subscribes to the resource's release channel.
                        Future<?> waiter = Executors.newSingleThreadExecutor().submit(
                                () -> manager.acquire(resource, Duration.ofMillis(300)));
                        assertThatThrownBy(() -> waiter.get(5, TimeUnit.SECONDS))
                                .hasCauseInstanceOf(LeaseTimeoutException.class);
                        assertThat(own.getNumActive()).as("the subscribed connection, provider " + i).isEqualTo(1);
                    }
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                while (own.getNumActive() > 0 && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertThat(own.getNumActive()).as("connections still out after provider " + i + " was closed").isZero();
            }
        }
    }

    @Override
    protected Duration expiryWait() {
        return shortLease().plus(LOCK_DELAY).multipliedBy(5);
    }

    @Override
    protected boolean forget(ResourceName resource, Lease lease) {
        try (Jedis jedis = pool.getResource()) {
            return jedis.del(LeaseKeys.of(config.keyPrefix(), resource).lock()) == 1;
        }
    }
}
