package io.fenceguard.core.internal;

import io.fenceguard.core.Fence;
import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseRequest;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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
    private final List<Registration> lossListeners;
    /** Below this much time left, a lease whose latest renewals are unconfirmed is at risk. */
    private final long atRiskNanos;
    private final List<RiskRegistration> riskListeners;
    private final List<Consumer<String>> releaseRequestListeners;
    /** Release requests are told in the order the store heard them; made with the first listener. */
    private volatile LossEvents.Lane releaseRequestLane;

    private volatile long deadlineNanos;
    private volatile LeaseLossReason lost;
    private volatile boolean released;
    /** Sending times of the latest renewal sent (or tried) and of the latest one the store confirmed. */
    private volatile long lastSentNanos;
    private volatile long lastConfirmedNanos;
    /** In a risk episode: told once, ended by a confirmed renewal. */
    private boolean atRisk;
    /** Risk episodes so far: each listener is told of each at most once. */
    private int riskEpisodes;
    private int holds = 1;
    private ScheduledFuture<?> renewal;
    private ScheduledFuture<?> deadlineCheck;
    private ScheduledFuture<?> riskCheck;
    private AutoCloseable storeWatch;
    private AutoCloseable releaseRequestWatch;

    public LeaseState(Fence fence, LeaseRequest request, Grant grant, long leaseNanos, long sentAtNanos,
                      LossEvents events) {
        this(fence, request, grant, leaseNanos, sentAtNanos, events, 0.5);
    }

    /** @param atRiskShare the share of the lease below which unconfirmed renewals put it at risk */
    public LeaseState(Fence fence, LeaseRequest request, Grant grant, long leaseNanos, long sentAtNanos,
                      LossEvents events, double atRiskShare) {
        this.lossListeners = new CopyOnWriteArrayList<>();
        this.riskListeners = new CopyOnWriteArrayList<>();
        this.releaseRequestListeners = new CopyOnWriteArrayList<>();
        this.atRiskNanos = (long) (leaseNanos * atRiskShare);
        this.lastSentNanos = sentAtNanos;
        this.lastConfirmedNanos = sentAtNanos;
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

    /** A renewal sent at {@code sentAtNanos} succeeded. A lease once lost stays lost. It ends a risk episode. */
    public void renewed(long sentAtNanos) {
        synchronized (this) {
            if (lost == null && !released) {
                deadlineNanos = Math.max(deadlineNanos, sentAtNanos + leaseNanos - driftNanos);
                if (sentAtNanos - lastConfirmedNanos > 0) {
                    lastConfirmedNanos = sentAtNanos;
                }
                atRisk = false;
            }
        }
    }

    /** A renewal was sent (or tried) at {@code sentAtNanos}: until the store confirms it, it counts as unconfirmed. */
    public void renewalSent(long sentAtNanos) {
        synchronized (this) {
            if (sentAtNanos - lastSentNanos > 0) {
                lastSentNanos = sentAtNanos;
            }
        }
    }

    /**
     * Starts a risk episode, and tells the risk listeners, when less than the at-risk share of the lease is left and
     * a renewal sent since the last confirmed one failed or is still unanswered. Called when a renewal fails and at
     * the time the share is reached.
     */
    public void checkAtRisk() {
        long remaining;
        int episode;
        synchronized (this) {
            if (atRisk || lost != null || released || lastSentNanos - lastConfirmedNanos <= 0) {
                return;
            }
            remaining = deadlineNanos - System.nanoTime();
            if (remaining >= atRiskNanos || remaining <= 0) {
                return;
            }
            atRisk = true;
            episode = ++riskEpisodes;
        }
        for (RiskRegistration r : riskListeners) {
            r.fire(episode, remaining);
        }
    }

    /** Whether the lease is in a risk episode now. */
    public synchronized boolean isAtRisk() {
        return atRisk && lost == null && !released;
    }

    /** Nanoseconds from now until the at-risk share of the lease is reached (negative when it has been). */
    public long nanosUntilAtRisk() {
        return deadlineNanos - atRiskNanos - System.nanoTime();
    }

    /**
     * Tells {@code listener} (with the time left in nanoseconds) at the start of each risk episode; at once if one
     * is under way.
     */
    public void onAtRisk(Consumer<Long> listener) {
        RiskRegistration r = new RiskRegistration(listener);
        riskListeners.add(r);
        int episode;
        synchronized (this) {
            episode = atRisk && lost == null && !released ? riskEpisodes : 0;
        }
        if (episode > 0) {
            r.fire(episode, remainingNanos());
        }
    }

    /**
     * Tells {@code listener} of each release request from now on; true when it is the first such listener (the
     * caller then starts listening in the store).
     */
    public boolean onReleaseRequested(Consumer<String> listener) {
        synchronized (this) {
            if (releaseRequestLane == null) {
                releaseRequestLane = events.lane();
            }
            releaseRequestListeners.add(listener);
            return releaseRequestListeners.size() == 1;
        }
    }

    /** Takes back a listener that could not be served (the store could not be asked to carry the requests). */
    public void removeReleaseRequestListener(Consumer<String> listener) {
        synchronized (this) {
            releaseRequestListeners.remove(listener);
        }
    }

    /** Whether anyone listens for release requests of this lease. */
    public boolean hasReleaseRequestListeners() {
        return !releaseRequestListeners.isEmpty();
    }

    /**
     * A release of this lease was asked for: each listener, then {@code observers} (when not null), is told on the
     * events executor unless the lease is gone by then; requests are told one after another, in the order they came.
     */
    public void releaseRequested(String reason, Runnable observers) {
        LossEvents.Lane lane = releaseRequestLane;
        if (lost != null || released || lane == null) {
            return;
        }
        for (Consumer<String> listener : releaseRequestListeners) {
            lane.dispatch(whileHeld(() -> listener.accept(reason)));
        }
        if (observers != null) {
            lane.dispatch(observers);
        }
    }

    /** The store's subscription to release requests of this lease; closed when the lease is released or lost. */
    public void setReleaseRequestWatch(AutoCloseable watch) {
        boolean gone;
        synchronized (this) {
            gone = released || lost != null;
            if (!gone) {
                releaseRequestWatch = watch;
            }
        }
        if (gone) {
            closeQuietly(watch, "release requests");
        }
    }

    /** {@code listener}, run only if the lease is neither lost nor released by the time it runs. */
    private Runnable whileHeld(Runnable listener) {
        return () -> {
            if (lost == null && !released) {
                listener.run();
            }
        };
    }

    private void closeQuietly(AutoCloseable watch, String what) {
        if (watch == null) {
            return;
        }
        try {
            watch.close();
        } catch (Exception e) {
            events.failed("closing the store's watch of " + what + " of " + fence, e);
        }
    }

    /** Marks the lease lost once; its listeners are told on the events executor, never on the caller's thread. */
    public void markLost(LeaseLossReason reason) {
        AutoCloseable requests;
        synchronized (this) {
            if (lost != null || released) {
                return;
            }
            lost = reason;
            cancelRenewal();
            requests = releaseRequestWatch;
            releaseRequestWatch = null;
        }
        closeQuietly(requests, "release requests");
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

    /** The check at the time the at-risk share is reached; replaces (and cancels) the previous one. */
    public synchronized void setRiskCheck(ScheduledFuture<?> check) {
        if (riskCheck != null) {
            riskCheck.cancel(false);
        }
        if (released || lost != null) {
            check.cancel(false);
        } else {
            this.riskCheck = check;
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
    public boolean exit() {
        AutoCloseable watch;
        AutoCloseable requests;
        synchronized (this) {
            if (released || --holds > 0) {
                return false;
            }
            released = true;
            cancelRenewal();
            watch = storeWatch;
            requests = releaseRequestWatch;
            releaseRequestWatch = null;
        }
        closeQuietly(watch, "loss");
        closeQuietly(requests, "release requests");
        return true;
    }

    private void cancelRenewal() {
        if (renewal != null) {
            renewal.cancel(false);
        }
        if (deadlineCheck != null) {
            deadlineCheck.cancel(false);
        }
        if (riskCheck != null) {
            riskCheck.cancel(false);
        }
    }

    /** One risk listener: told of each episode at most once, however its registration and the episode's start race. */
    private final class RiskRegistration {
        private final Consumer<Long> listener;
        private final AtomicInteger toldEpisode = new AtomicInteger();

        RiskRegistration(Consumer<Long> listener) {
            this.listener = listener;
        }

        void fire(int episode, long remaining) {
            int told = toldEpisode.get();
            if (told < episode && toldEpisode.compareAndSet(told, episode)) {
                events.dispatch(whileHeld(() -> listener.accept(remaining)));
            }
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
