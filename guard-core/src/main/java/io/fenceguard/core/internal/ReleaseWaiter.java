package io.fenceguard.core.internal;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/** Waits for a release of a resource by Redis pub/sub, so contended waiters sleep instead of polling. */
public final class ReleaseWaiter {

    private final RedissonClient redisson;

    public ReleaseWaiter(RedissonClient redisson) {
        this.redisson = redisson;
    }

    /** Subscribes before the caller's next attempt, so that no release between the two is missed. */
    public Subscription subscribe(LeaseKeys keys) {
        RTopic topic = redisson.getTopic(keys.channel(), StringCodec.INSTANCE);
        Semaphore released = new Semaphore(0);
        int id = topic.addListener(String.class, (channel, holder) -> released.release());
        return new Subscription(topic, id, released);
    }

    /** One waiter's subscription. */
    public static final class Subscription implements AutoCloseable {
        private final RTopic topic;
        private final int listenerId;
        private final Semaphore released;

        Subscription(RTopic topic, int listenerId, Semaphore released) {
            this.topic = topic;
            this.listenerId = listenerId;
            this.released = released;
        }

        /** Forgets releases seen before the next attempt: that attempt sees their effect itself. */
        public void drain() {
            released.drainPermits();
        }

        /** True when a release was announced within the time. */
        public boolean await(long nanos) throws InterruptedException {
            return nanos > 0 && released.tryAcquire(nanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void close() {
            topic.removeListenerAsync(listenerId);
        }
    }
}
