package io.fenceguard.core.internal;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.ResourceName;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Consumer;

/**
 * What this process knows about one lease it holds: shared by the re-entrant handles of one holder.
 * Times are {@link System#nanoTime()} values; the deadline is measured from when the acquire or renew
 * request was sent, less a drift allowance, so the local view never outlives the one in Redis.
 */
public final class LeaseState {

    private final ResourceName resource;
    private final FencingToken token;
    private final String holder;
    private final LeaseKeys keys;
    private final long leaseNanos;
    private final long driftNanos;
    private final List<Consumer<LeaseLossReason>> lossListeners = new CopyOnWriteArrayList<>();

    private volatile long deadlineNanos;
    private volatile long renewalSuspendedUntil;
    private volatile LeaseLossReason lost;
    private volatile boolean released;
    private int holds = 1;
    private ScheduledFuture<?> renewal;

    public LeaseState(ResourceName resource, FencingToken token, String holder, LeaseKeys keys,
                      long leaseNanos, long sentAtNanos) {
        this.resource = resource;
        this.token = token;
        this.holder = holder;
        this.keys = keys;
        this.leaseNanos = leaseNanos;
        this.driftNanos = leaseNanos / 100 + 2_000_000L;
        this.deadlineNanos = sentAtNanos + leaseNanos - driftNanos;
    }

    public ResourceName resource() {
        return resource;
    }

    public FencingToken token() {
        return token;
    }

    public String holder() {
        return holder;
    }

    public LeaseKeys keys() {
        return keys;
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

    public void markLost(LeaseLossReason reason) {
        synchronized (this) {
            if (lost != null || released) {
                return;
            }
            lost = reason;
            cancelRenewal();
        }
        lossListeners.forEach(l -> l.accept(reason));
    }

    public void onLost(Consumer<LeaseLossReason> listener) {
        lossListeners.add(listener);
    }

    /** Stops renewals until then, as a stop-the-world pause of the holder would. */
    public void suspendRenewalUntil(long nanos) {
        renewalSuspendedUntil = nanos;
    }

    public boolean renewalSuspended(long now) {
        return now - renewalSuspendedUntil < 0;
    }

    public synchronized void setRenewal(ScheduledFuture<?> renewal) {
        this.renewal = renewal;
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
        if (--holds > 0) {
            return false;
        }
        released = true;
        cancelRenewal();
        return true;
    }

    private void cancelRenewal() {
        if (renewal != null) {
            renewal.cancel(false);
        }
    }
}
