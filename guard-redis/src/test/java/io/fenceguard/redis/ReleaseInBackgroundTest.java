package io.fenceguard.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import io.fenceguard.redis.internal.LeaseKeys;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code releaseInBackground}: a release returns without waiting for Redis, yet still frees the lock for
 * the next holder, never touches another holder's lock, and a release Redis cannot run only leaves the
 * lock to expire.
 */
class ReleaseInBackgroundTest {

    private static final LeaseConfig LEASE = LeaseConfig.builder().leaseTime(Duration.ofSeconds(2)).build();

    @RegisterExtension
    static final OwnRedisServer redis = new OwnRedisServer();

    @Test
    void theNextHolderGetsTheLockAndAGreaterToken() {
        RedisLeaseConfig config = RedisClients.fastRedis().releaseInBackground(true).build();
        try (LeaseManager first = RedisClients.manager(redis.client(), config, LEASE);
             LeaseManager second = RedisClients.manager(redis.client(), config, LEASE)) {
            for (int i = 0; i < 50; i++) {
                Lease a = first.acquire("bg:next", Duration.ofSeconds(1));
                a.close();
                // No lock-delay after a clean release: the waiter is granted as soon as the release ran.
                Lease b = second.acquire("bg:next", Duration.ofSeconds(1));
                assertThat(b.token().compareTo(a.token())).isPositive();
                b.close();
            }
            LeaseKeys keys = LeaseKeys.of(config.keyPrefix(), ResourceName.of("bg:next"));
            awaitGone(keys.lock());
            assertThat(redis.call("EXISTS", keys.delay())).isEqualTo(0L);
        }
    }

    @Test
    void aLateReleaseLeavesAnotherHoldersLockAlone() {
        RedisLeaseConfig config = RedisClients.fastRedis().releaseInBackground(true).build();
        try (LeaseManager manager = RedisClients.manager(redis.client(), config, LEASE)) {
            Lease stale = manager.acquire("bg:other", Duration.ofSeconds(1));
            LeaseKeys keys = LeaseKeys.of(config.keyPrefix(), ResourceName.of("bg:other"));
            redis.call("DEL", keys.lock(), keys.delay());
            redis.call("HSET", keys.lock(), "holder", "someone-else", "token", "1");
            stale.close();
            Lease probe = manager.acquire("bg:probe", Duration.ofSeconds(1)); // a later call on the same client
            probe.close();
            assertThat(redis.call("HGET", keys.lock(), "holder")).isEqualTo("someone-else");
        }
    }

    @Test
    void aReleaseReturnsWhileRedisIsFrozenAndTheLockThenExpires() throws Exception {
        RedisLeaseConfig config = RedisClients.fastRedis().releaseInBackground(true).build();
        try (LeaseManager manager = RedisClients.manager(redis.client(), config, LEASE)) {
            Lease lease = manager.acquire("bg:frozen", Duration.ofSeconds(1));
            LeaseKeys keys = LeaseKeys.of(config.keyPrefix(), ResourceName.of("bg:frozen"));
            redis.server().freeze();
            long start = System.nanoTime();
            try {
                lease.close();
            } finally {
                long tookMillis = (System.nanoTime() - start) / 1_000_000;
                Thread.sleep(200);
                redis.server().thaw();
                System.out.printf("release against a frozen Redis returned after %d ms%n", tookMillis);
                // A waiting release would have waited the call timeout (500 ms for this lease).
                assertThat(tookMillis).isLessThan(400);
            }
            assertThat(lease.isValid()).isFalse();
            awaitGone(keys.lock());
        }
    }

    private static void awaitGone(String key) {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!Long.valueOf(0).equals(redis.call("EXISTS", key)) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        assertThat(redis.call("EXISTS", key)).as("key %s", key).isEqualTo(0L);
    }
}
