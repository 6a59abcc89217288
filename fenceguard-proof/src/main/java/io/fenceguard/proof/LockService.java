package io.fenceguard.proof;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.redis.RedisLeaseConfig;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.testsupport.faults.PausableLeaseProvider;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;

/**
 * Locks on one Redis deployment (the single server or the Sentinel group): fenceguard leases when
 * fencing is on, Redisson's {@link RFencedLock} otherwise (its tokens are recorded for the checker
 * but nothing enforces them).
 */
public interface LockService extends AutoCloseable {

    Duration WAIT = Duration.ofSeconds(5);

    /** The lock on {@code resource}, waiting up to {@link #WAIT}; throws when it was not obtained. */
    Grant acquire(String resource) throws Exception;

    @Override
    void close();

    /**
     * fenceguard leases on Redis; the provider is wrapped so that the nemesis can hold back the renewals
     * of a paused holder (see {@link Grant#pause}).
     */
    static LockService fenceguard(RedissonClient redisson, Topology topology, String clientName) {
        RedisLeaseConfig redis = RedisLeaseConfig.builder()
                .lockDelay(Duration.ofMillis(topology.leaseMillis() / 4))
                .keyPrefix("fg:" + topology.runId() + ":")
                .name("proof-" + clientName)
                .openStateDuration(Duration.ofSeconds(2))
                .build();
        PausableLeaseProvider provider = PausableLeaseProvider.wrap(RedisLeaseProvider.of(RedissonScriptClient.of(redisson), redis));
        LeaseConfig config = LeaseConfig.builder()
                .leaseTime(Duration.ofMillis(topology.leaseMillis()))
                .clientName(clientName)
                .build();
        LeaseManager manager = LeaseManager.of(provider, config);
        return new LockService() {
            @Override
            public Grant acquire(String resource) {
                Lease lease = manager.acquire(resource, WAIT);
                return Grant.fenced(lease, provider, config.leaseTime());
            }

            @Override
            public void close() {
                // the manager never closes its provider; the provider leaves the Redisson client to its owner
                manager.close();
                provider.close();
            }
        };
    }

    static LockService redissonFencedLock(RedissonClient redisson, Topology topology) {
        return new LockService() {
            @Override
            public Grant acquire(String resource) throws InterruptedException {
                RFencedLock lock = redisson.getFencedLock("proof:" + topology.runId() + ":" + resource);
                Long token = lock.tryLockAndGetToken(WAIT.toMillis(), topology.leaseMillis(), TimeUnit.MILLISECONDS);
                if (token == null) {
                    throw new LockNotObtainedException(resource);
                }
                return Grant.unfenced(token, () -> unlockIfStillHeld(lock));
            }

            @Override
            public void close() {
                // the Redisson client is closed by its owner
            }
        };
    }

    private static void unlockIfStillHeld(RFencedLock lock) {
        try {
            lock.unlock();
        } catch (RuntimeException expiredOrUnreachable) {
            // the lease ran out (IllegalMonitorStateException) or Redis is down: it expires by itself
        }
    }

    /** The unfenced lock was not obtained within {@link #WAIT}. */
    final class LockNotObtainedException extends RuntimeException {
        LockNotObtainedException(String resource) {
            super("lock on " + resource + " not obtained within " + WAIT);
        }
    }
}
