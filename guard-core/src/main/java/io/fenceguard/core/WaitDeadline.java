package io.fenceguard.core;

import java.time.Duration;

/** The end of one caller's {@code wait}, shared by the several store calls made within it. */
final class WaitDeadline {

    /** Far enough for any wait, near enough that adding it to {@link System#nanoTime()} never overflows. */
    private static final long LONGEST_NANOS = Long.MAX_VALUE / 4;

    private final long atNanos;

    private WaitDeadline(long atNanos) {
        this.atNanos = atNanos;
    }

    static WaitDeadline after(Duration wait) {
        return new WaitDeadline(System.nanoTime() + Math.min(wait.toNanos(), LONGEST_NANOS));
    }

    /** Nanoseconds left: zero or negative once passed. */
    long leftNanos() {
        return atNanos - System.nanoTime();
    }

    /** The wait left for the next call: zero once passed. */
    Duration left() {
        return Duration.ofNanos(Math.max(0, leftNanos()));
    }
}
