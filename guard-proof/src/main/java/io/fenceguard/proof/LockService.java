package io.fenceguard.proof;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.lock.LockResponse;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import io.fenceguard.etcd.EtcdLeaseConfig;
import io.fenceguard.etcd.EtcdLeaseProvider;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.redis.RedisLeaseConfig;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.test.support.faults.PausableLeaseProvider;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;

/**
 * Locks on one store: a Redis deployment (the single server or the Sentinel group) or the etcd cluster.
 * fenceguard leases when fencing is on; otherwise the store's own lock (Redisson's {@link RFencedLock}, etcd's
 * lock service), whose tokens are recorded for the checker but enforced by nothing.
 */
public interface LockService extends AutoCloseable {

    Duration WAIT = Duration.ofSeconds(5);

    /** How long one call to etcd may take: a leader election of the run's cluster (1 s election timeout) and more. */
    Duration ETCD_CALL_TIMEOUT = Duration.ofSeconds(3);

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

    /**
     * fenceguard leases on etcd ({@link EtcdLeaseProvider}, tokens are the lock keys' create revisions), wrapped
     * like the Redis ones so that the nemesis can hold back a paused holder's keep-alives.
     */
    static LockService fenceguardEtcd(Client etcd, Topology topology, String clientName) {
        EtcdLeaseConfig etcdConfig = new EtcdLeaseConfig("fg/" + topology.runId() + "/", ETCD_CALL_TIMEOUT);
        PausableLeaseProvider provider = PausableLeaseProvider.wrap(EtcdLeaseProvider.of(etcd, etcdConfig));
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
                manager.close();
                provider.close();
            }
        };
    }

    /**
     * etcd's own lock service as an application uses it without fencing: an etcd lease of the lease time (whole
     * seconds, as etcd counts them; kept alive while waiting, then not, like the Redisson lock's fixed lease), the
     * lock taken on it, and as token the revision in the lock's answer (it grows from one holder of a lock to
     * the next). Nothing checks the lease again after the answer came.
     */
    static LockService etcdLock(Client etcd, Topology topology) {
        long ttlSeconds = Math.max(1, (topology.leaseMillis() + 999) / 1000);
        return new LockService() {
            @Override
            public Grant acquire(String resource) throws Exception {
                long leaseId = etcd.getLeaseClient().grant(ttlSeconds).get(WAIT.toMillis(), TimeUnit.MILLISECONDS).getID();
                ByteSequence name = ByteSequence.from("proof/" + topology.runId() + "/" + resource, StandardCharsets.UTF_8);
                // Kept alive while it waits (etcd's lock service would otherwise hand the lock to a waiter whose
                // lease ran out in the queue), then left to run out: the lock lasts a lease from when it was taken.
                CloseableClient waiting = etcd.getLeaseClient().keepAlive(leaseId, IGNORED);
                CompletableFuture<LockResponse> locking = etcd.getLockClient().lock(name, leaseId);
                LockResponse locked;
                try {
                    locked = locking.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                } catch (TimeoutException | ExecutionException | InterruptedException e) {
                    locking.cancel(true);
                    // revoking the lease deletes the waiter's key with it
                    etcd.getLeaseClient().revoke(leaseId);
                    if (e instanceof TimeoutException) {
                        throw new LockNotObtainedException(resource);
                    }
                    throw e;
                } finally {
                    waiting.close();
                }
                ByteSequence key = locked.getKey();
                return Grant.unfenced(locked.getHeader().getRevision(), () -> unlockQuietly(etcd, key, leaseId));
            }

            @Override
            public void close() {
                // the jetcd client is closed by its owner
            }
        };
    }

    /** The answers to a waiter's keep-alives: its lease is checked by etcd's lock service, not here. */
    StreamObserver<LeaseKeepAliveResponse> IGNORED = new StreamObserver<>() {
        @Override
        public void onNext(LeaseKeepAliveResponse value) {
        }

        @Override
        public void onError(Throwable t) {
        }

        @Override
        public void onCompleted() {
        }
    };

    private static void unlockQuietly(Client etcd, ByteSequence key, long leaseId) {
        try {
            etcd.getLockClient().unlock(key).get(ETCD_CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException expiredOrUnreachable) {
            // the lease ran out or etcd is unreachable: the key goes with its lease
        }
        etcd.getLeaseClient().revoke(leaseId);
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
