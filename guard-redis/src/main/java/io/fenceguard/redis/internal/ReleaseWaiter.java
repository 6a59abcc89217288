package io.fenceguard.redis.internal;

import io.fenceguard.redis.RedisScriptClient;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.ResourceName;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Waits for a release of a resource by Redis pub/sub, so contended waiters sleep instead of polling.
 * The waiters of one resource in this process share one subscription, and each release wakes one of
 * them: the lock can go to one holder only, so waking them all would only send the rest back to sleep
 * after a wasted round trip each.
 */
public final class ReleaseWaiter {

    private final RedisScriptClient client;
    private final Map<String, Channel> channels = new ConcurrentHashMap<>();

    public ReleaseWaiter(RedisScriptClient client) {
        this.client = client;
    }

    /**
     * Subscribes before the caller's next attempt, so that no release between the two is missed. Waits for
     * Redis to confirm the subscription at most {@code maxWaitNanos}: a waiter on a slow or frozen Redis goes
     * on without it (and then wakes when the holder's time runs out) rather than overrun its wait.
     */
    public Subscription subscribe(ResourceName resource, LeaseKeys keys, long maxWaitNanos) {
        Channel channel = channels.compute(keys.channel(), (name, existing) -> {
            Channel c = existing != null ? existing : new Channel(client, name);
            c.waiters++;
            return c;
        });
        Subscription subscription = new Subscription(this, keys.channel(), channel);
        try {
            channel.listen().toCompletableFuture().get(Math.max(0, maxWaitNanos), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            subscription.close();
            Thread.currentThread().interrupt();
            throw new FenceguardException("interrupted while waiting for a lease on '" + resource + "'", resource, null, e);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            // Not confirmed in time: the waiter still wakes when the holder's time is up.
        }
        return subscription;
    }

    private void leave(String name, Channel channel) {
        channels.compute(name, (key, current) -> {
            if (current != channel) {
                return current;
            }
            if (--current.waiters > 0) {
                return current;
            }
            current.stop();
            return null;
        });
    }

    /** One resource's channel in this process: one listener, one permit per announced release. */
    private static final class Channel {
        private final RedisScriptClient client;
        private final String name;
        private final Semaphore released = new Semaphore(0);
        private int waiters;
        /** Guards listener: a lock, not a monitor, since a client may block on its socket inside (virtual threads). */
        private final ReentrantLock lock = new ReentrantLock();
        private RedisScriptClient.Subscription listener;

        Channel(RedisScriptClient client, String name) {
            this.client = client;
            this.name = name;
        }

        CompletionStage<?> listen() {
            lock.lock();
            try {
                if (listener == null || listener.confirmed().toCompletableFuture().isCompletedExceptionally()) {
                    if (listener != null) {
                        listener.cancel();
                    }
                    listener = client.subscribe(name, released::release);
                }
                return listener.confirmed();
            } finally {
                lock.unlock();
            }
        }

        void stop() {
            lock.lock();
            try {
                if (listener != null) {
                    listener.cancel();
                    listener = null;
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /** One waiter's share of its resource's subscription. */
    public static final class Subscription implements AutoCloseable {
        private final ReleaseWaiter owner;
        private final String name;
        private final Channel channel;
        private boolean closed;
        private boolean woken;

        Subscription(ReleaseWaiter owner, String name, Channel channel) {
            this.owner = owner;
            this.name = name;
            this.channel = channel;
        }

        /** True when a release was announced within the time and this waiter is the one it wakes. */
        public boolean await(long nanos) throws InterruptedException {
            woken = nanos > 0 && channel.released.tryAcquire(nanos, TimeUnit.NANOSECONDS);
            return woken;
        }

        /** The next attempt uses the wake-up. */
        public void attempting() {
            woken = false;
        }

        /** A waiter that leaves with an unused wake-up hands it to the next waiter. */
        @Override
        public void close() {
            if (!closed) {
                closed = true;
                if (woken) {
                    channel.released.release();
                }
                owner.leave(name, channel);
            }
        }
    }
}
