package io.fenceguard.core.internal;

import io.fenceguard.core.Fence;
import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseRequest;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * What this process knows about one lease it holds: shared by the re-entrant handles of one holder.
 * Times are {@link System#nanoTime()} values; the deadline is measured from when the acquire or renew
 * request was sent, less a drift allowance, so the local view never outlives the store's.
 */
public final class LeaseState {

    private final Fence fence;
    private final LeaseRequest request;
    private final Grant grant;
    private final long leaseNanos;
    private final long driftNanos;
    private final LossEvents events;
    private final List<Registration> lossListeners = new CopyOnWriteArrayList<>();

    private volatile long deadlineNanos;
    private volatile LeaseLossReason lost;
    private volatile boolean released;
    private int holds = 1;
    private ScheduledFuture<?> renewal;
    private ScheduledFuture<?> deadlineCheck;
    private AutoCloseable storeWatch;

    /**
     * @param request null for a presented fence, which no store holds for this process
     * @param grant null for a presented fence
     */
    public LeaseState(Fence fence, LeaseRequest request, Grant grant, long leaseNanos, long sentAtNanos,
                      LossEvents events) {
        this.fence = fence;
        this.request = request;
        this.grant = grant;
        this.leaseNanos = leaseNanos;
        this.driftNanos = leaseNanos / 100 + 2_000_000L;
        this.deadlineNanos = sentAtNanos + leaseNanos - driftNanos;
        this.events = events;
    }

    public Fence fence() {
        return fence;
    }

    public LeaseRequest request() {
        return request;
    }

    public Grant grant() {
        return grant;
    }

    public long remainingNanos() {
        if (lost != null || released) {
            return 0;
        }
        return Math.max(0, deadlineNanos - System.nanoTime());
    }

    /** Valid while not released, not lost and within the deadline; noticing expiry marks it lost. */
    public boolean isValid() {
        if (released || lost != null) {
            return false;
        }
        if (System.nanoTime() - deadlineNanos >= 0) {
            markLost(LeaseLossReason.EXPIRED);
            return false;
        }
        return true;
    }

    public LeaseLossReason lossReason() {
        return lost;
    }

    public boolean isReleased() {
        return released;
    }

    /** A renewal sent at {@code sentAtNanos} succeeded. A lease once lost stays lost. */
    public void renewed(long sentAtNanos) {
        if (lost == null && !released) {
            deadlineNanos = Math.max(deadlineNanos, sentAtNanos + leaseNanos - driftNanos);
        }
    }

    /** Marks the lease lost once; its listeners are told on the events executor, never on the caller's thread. */
    public void markLost(LeaseLossReason reason) {
        synchronized (this) {
            if (lost != null || released) {
                return;
            }
            lost = reason;
            cancelRenewal();
        }
        for (Registration r : lossListeners) {
            r.fire(reason, events);
        }
    }

    /** Tells {@code listener} of the loss exactly once: later, or at once (still on the executor) if lost already. */
    public void onLost(Consumer<LeaseLossReason> listener) {
        Registration r = new Registration(listener);
        lossListeners.add(r);
        LeaseLossReason reason = lost;
        if (reason != null) {
            r.fire(reason, events);
        }
    }

    public synchronized void setRenewal(ScheduledFuture<?> renewal) {
        if (released || lost != null) {
            renewal.cancel(false);
        } else {
            this.renewal = renewal;
        }
    }

    /** The check at the current deadline; replaces (and cancels) the previous one. */
    public synchronized void setDeadlineCheck(ScheduledFuture<?> check) {
        if (deadlineCheck != null) {
            deadlineCheck.cancel(false);
        }
        if (released || lost != null) {
            check.cancel(false);
        } else {
            this.deadlineCheck = check;
        }
    }

    public synchronized void setStoreWatch(AutoCloseable storeWatch) {
        this.storeWatch = storeWatch;
    }

    /** Another handle of the same holder; false when the lease is no longer held. */
    public synchronized boolean enter() {
        if (released || lost != null) {
            return false;
        }
        holds++;
        return true;
    }

    /** Gives up one handle; true when it was the last and the lease is now released locally. */
    public synchronized boolean exit() {
        if (released || --holds > 0) {
            return false;
        }
        released = true;
        cancelRenewal();
        if (storeWatch != null) {
            try {
                storeWatch.close();
            } catch (Exception e) {
                events.failed("closing the store's watch of " + fence, e);
            }
        }
        return true;
    }

    private void cancelRenewal() {
        if (renewal != null) {
            renewal.cancel(false);
        }
        if (deadlineCheck != null) {
            deadlineCheck.cancel(false);
        }
    }

    private static final class Registration {
        private final Consumer<LeaseLossReason> listener;
        private final AtomicBoolean fired = new AtomicBoolean();

        Registration(Consumer<LeaseLossReason> listener) {
            this.listener = listener;
        }

        void fire(LeaseLossReason reason, LossEvents events) {
            if (fired.compareAndSet(false, true)) {
                events.dispatch(() -> listener.accept(reason));
            }
        }
    }
}
