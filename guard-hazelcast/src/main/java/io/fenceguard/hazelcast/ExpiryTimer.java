package io.fenceguard.hazelcast;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Tells the held leases of a provider when their lease time passes without a renewal, on one timer thread. A lease
 * is put on the timer by an admission that runs at most {@link #ADMISSION_DELAY_NANOS} after its grant, together with
 * every lease granted meanwhile: a lease released before then never touches the timer's queue. Putting each lease on
 * the timer at its grant would cost an insertion and a removal under the queue's lock per lease and, whenever the
 * lease became the queue's first (every time, with one lease held at once), a wake-up of the timer thread. A lease is
 * admitted within a quarter of its lease time at most, and its expiry counts from its grant all the same, so it fires
 * when it did before; a lease shorter than four admission delays is put on the timer at once.
 */
final class ExpiryTimer {

    private static final long ADMISSION_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final ScheduledThreadPoolExecutor timer;
    /** Leases granted and not yet put on the timer. */
    private final ConcurrentLinkedQueue<LockOwner> arriving = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean admissionPending = new AtomicBoolean();

    ExpiryTimer(ThreadFactory threads) {
        timer = new ScheduledThreadPoolExecutor(1, threads);
        timer.setKeepAliveTime(60, TimeUnit.SECONDS);
        timer.allowCoreThreadTimeOut(true);
        timer.setRemoveOnCancelPolicy(true);
    }

    /** Arms the expiry of {@code owner}, just granted a lease of {@code leaseNanos}, unless its lease ended by then. */
    void admit(LockOwner owner, long leaseNanos) {
        if (leaseNanos < 4 * ADMISSION_DELAY_NANOS) {
            owner.armExpiry();
            return;
        }
        arriving.add(owner);
        if (admissionPending.compareAndSet(false, true)) {
            timer.schedule(this::admitArrived, ADMISSION_DELAY_NANOS, TimeUnit.NANOSECONDS);
        }
    }

    /** Runs {@code check} on the timer thread in {@code nanos}. */
    ScheduledFuture<?> schedule(Runnable check, long nanos) {
        return timer.schedule(check, Math.max(0, nanos), TimeUnit.NANOSECONDS);
    }

    private void admitArrived() {
        // Cleared first: a lease that arrives after the last poll below schedules the next admission.
        admissionPending.set(false);
        for (LockOwner owner = arriving.poll(); owner != null; owner = arriving.poll()) {
            owner.armExpiry();
        }
    }
}
