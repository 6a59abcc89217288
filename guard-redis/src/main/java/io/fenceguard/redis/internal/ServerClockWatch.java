package io.fenceguard.redis.internal;

import io.fenceguard.core.LeaseLossReason;
import java.util.function.Consumer;

/**
 * Compares the Redis server's clock, as each acquire and renewal of one lease reports it, with this
 * process's monotonic clock. Redis counts a lease's expiry on its own wall clock, so a forward jump of
 * that clock shortens the lease in Redis behind this process's back; a backward jump lengthens it.
 *
 * <p>The server read its time somewhere between sending and receiving, so between two readings at most
 * {@code received₂ − sent₁} and at least {@code sent₂ − received₁} passed here. A server step beyond those
 * bounds plus the drift allowance (1 % and 2 ms, as the local deadline allows) is a jump.
 */
public final class ServerClockWatch {

    /** One reply's server time and when its request left and its answer came back here. */
    public record Reading(long serverMicros, long sentNanos, long receivedNanos) {
    }

    /** How far the server's clock went beyond what passed here; positive forward, negative back, 0 none. */
    public record Step(long excessNanos) {
        public boolean forward() {
            return excessNanos > 0;
        }

        public boolean backward() {
            return excessNanos < 0;
        }
    }

    private static final Step NONE = new Step(0);
    private static final long SLACK_NANOS = 2_000_000L;

    private final long createdNanos;
    private Reading last;
    private volatile Consumer<LeaseLossReason> lost;

    public ServerClockWatch(Reading first) {
        this.last = first;
        this.createdNanos = System.nanoTime();
    }

    /** Compares {@code next} with the previous reading, then keeps it as the new one. */
    public synchronized Step observe(Reading next) {
        Reading previous = last;
        if (previous == null || next.receivedNanos() - previous.receivedNanos() < 0) {
            if (previous == null) {
                last = next;
            }
            return NONE;
        }
        last = next;
        long serverNanos = (next.serverMicros() - previous.serverMicros()) * 1_000L;
        long atMost = next.receivedNanos() - previous.sentNanos();
        long atLeast = Math.max(0, next.sentNanos() - previous.receivedNanos());
        long forward = serverNanos - (atMost + atMost / 100 + SLACK_NANOS);
        if (forward > 0) {
            return new Step(forward);
        }
        long backward = serverNanos - (atLeast - atLeast / 100 - SLACK_NANOS);
        if (backward < 0) {
            return new Step(backward);
        }
        return NONE;
    }

    public void onLost(Consumer<LeaseLossReason> listener) {
        this.lost = listener;
    }

    /** Tells the lease's holder; false when nobody listens (the provider is used without a manager). */
    public boolean tellLost() {
        Consumer<LeaseLossReason> listener = lost;
        if (listener == null) {
            return false;
        }
        listener.accept(LeaseLossReason.CLOCK_JUMP);
        return true;
    }

    public boolean isWatched() {
        return lost != null;
    }

    public long createdNanos() {
        return createdNanos;
    }
}
