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
import io.fenceguard.test.support.RedisEndpoint;
import io.fenceguard.test.support.RespClient;
import io.fenceguard.test.support.TestServers;
import io.fenceguard.test.contract.LeaseProviderContract;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The contract every provider passes, run on a {@link RedisLeaseProvider} over one client of the test Redis: a key
 * prefix of its own per test (a second provider of the test shares the first one's keys), a lock-delay after an
 * expiry, and a lock forgotten as it is when it expires. Also the release wake-ups every client's tests check.
 */
abstract class RedisProviderContract extends LeaseProviderContract {

    static final Duration LOCK_DELAY = Duration.ofMillis(300);

    private RedisLeaseConfig config;

    /** A script client on the test class's connection to the test Redis (a new one each call). */
    protected abstract RedisScriptClient scriptClient();

    /** The provider's settings; the key prefix is the test's own. */
    protected RedisLeaseConfig.Builder settings() {
        return RedisClients.fastRedis().lockDelay(LOCK_DELAY);
    }

    @Override
    protected LeaseProvider createProvider() {
        if (config == null) {
            config = settings().build();
        }
        return RedisLeaseProvider.of(scriptClient(), config);
    }

    /** An expired holder's resource stays closed for the lock-delay after its lock is gone. */
    @Override
    protected Duration expiryWait() {
        return shortLease().plus(LOCK_DELAY).multipliedBy(5);
    }

    /** The lock key vanishes as it does when it expires; the lock-delay marker stays, as it would. */
    @Override
    protected boolean forget(ResourceName resource, Lease lease) {
        RedisEndpoint redis = TestServers.redis();
        try (RespClient connection = new RespClient(redis.host(), redis.port())) {
            return Long.valueOf(1).equals(connection.call("DEL", LeaseKeys.of(config.keyPrefix(), resource).lock()));
        }
    }

    /**
     * Waiters sleep on the release channel and wake on the release, not when the holder's 30 s are up: in each of
     * {@code rounds}, three waiters of another provider are granted one after the other within 3 s of the release.
     */
    protected void assertWaitersWakeOnTheRelease(int rounds) throws Exception {
        RedisLeaseConfig redis = RedisClients.fastRedis().build();
        LeaseConfig lease = LeaseConfig.builder().leaseTime(Duration.ofSeconds(30)).build();
        try (RedisLeaseProvider holderProvider = RedisLeaseProvider.of(scriptClient(), redis);
             RedisLeaseProvider waiterProvider = RedisLeaseProvider.of(scriptClient(), redis);
             LeaseManager holder = LeaseManager.of(holderProvider, lease);
             LeaseManager waiters = LeaseManager.of(waiterProvider, lease)) {
            ExecutorService threads = Executors.newFixedThreadPool(3);
            try {
                for (int round = 0; round < rounds; round++) {
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
     * Providers opened one after another on {@code clients}, each closed after a waiter made it subscribe to a
     * release channel: while open it holds one subscribed connection, and within 3 s of its close none is left
     * ({@code left} names what {@code subscribed} counts); {@code afterClose} checks more after each.
     */
    protected static void assertClosedProvidersLeaveNoSubscription(int providers, Supplier<RedisScriptClient> clients,
            LongSupplier subscribed, String left, IntConsumer afterClose) throws Exception {
        for (int i = 0; i < providers; i++) {
            String resource = "close:" + i;
            try (RedisLeaseProvider provider = RedisLeaseProvider.of(clients.get(), RedisClients.fastRedis().build());
                 LeaseManager manager = LeaseManager.of(provider)) {
                try (Lease held = manager.acquire(resource, Duration.ofSeconds(1))) {
                    // Another thread waits for it: the provider subscribes to the resource's release channel.
                    Future<?> waiter = Executors.newSingleThreadExecutor().submit(
                            () -> manager.acquire(resource, Duration.ofMillis(300)));
                    assertThatThrownBy(() -> waiter.get(5, TimeUnit.SECONDS))
                            .hasCauseInstanceOf(LeaseTimeoutException.class);
                    assertThat(subscribed.getAsLong()).as("the subscribed connection, provider " + i).isEqualTo(1);
                }
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (subscribed.getAsLong() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(subscribed.getAsLong()).as(left + " after provider " + i + " was closed").isZero();
            afterClose.accept(i);
        }
    }
}
