package io.fenceguard.core.spi;

import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.ResourceName;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * What every lease provider repeats, written once: the checks of an acquire's arguments, the deadline of its
 * wait, and a pause between attempts that an interrupt ends with a {@link FenceguardException} naming the resource
 * (the interrupt flag set again). A provider implements {@link #acquire(LeaseRequest, Duration, long)}, which is
 * called with valid arguments only.
 */
public abstract class AbstractLeaseProvider implements LeaseProvider {

    /** Waits longer than this are cut to it, so that a deadline in {@link System#nanoTime()} never overflows. */
    private static final long MAX_WAIT_NANOS = Long.MAX_VALUE / 4;

    @Override
    public final Grant acquire(LeaseRequest request, Duration wait) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(wait, "wait");
        if (wait.isNegative()) {
            throw new IllegalArgumentException("wait must not be negative, got " + wait);
        }
        long waitNanos = wait.compareTo(Duration.ofNanos(MAX_WAIT_NANOS)) > 0 ? MAX_WAIT_NANOS : wait.toNanos();
        return acquire(request, wait, System.nanoTime() + waitNanos);
    }

    /**
     * {@link #acquire(LeaseRequest, Duration)} with its arguments checked.
     *
     * @param wait           as the caller gave it, for messages
     * @param deadlineNanos  the end of the wait in {@link System#nanoTime()}
     */
    protected abstract Grant acquire(LeaseRequest request, Duration wait, long deadlineNanos);

    /** Sleeps {@code nanos} between two attempts on {@code resource}; an interrupt ends the wait. */
    protected static void pause(ResourceName resource, long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FenceguardException("interrupted while waiting for a lease on '" + resource + "'", resource, null, e);
        }
    }
}
