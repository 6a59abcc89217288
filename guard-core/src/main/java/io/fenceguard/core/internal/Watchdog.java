package io.fenceguard.core.internal;

import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.core.spi.Renewal;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Renews leases while their holder lives, and marks a lease lost when the store refuses a renewal or
 * the lease runs out before one succeeds. Its one thread only sends renewals: listeners run elsewhere
 * ({@link LossEvents}).
 *
 * <p>Renewals go out on a steady beat and may overlap: one still in flight on a slow link does not hold
 * back the next, so each confirmed renewal moves the deadline to its own sending time plus the lease, and
 * a round trip of up to lease − interval keeps the lease. A renewal that fails is tried again soon (a
 * quarter of the time left, at least 10 ms), within the lease. A check at the conservative deadline
 * declares the loss when, and only when, that deadline has passed without a confirmation.
 *
 * <p>Renewals due together go to the store together ({@link LeaseProvider#renewAll}), so that a store
 * able to extend many locks in one call keeps renewal traffic flat in the number of leases. To make them
 * due together, each lease's beat is put on a grid of half an interval from this watchdog's start,
 * rounded down: the first renewal comes between half an interval and one interval after the grant, never
 * later, and the leases of one manager fall into two phases per interval.
 */
public final class Watchdog implements AutoCloseable {

    private static final System.Logger log = System.getLogger(Watchdog.class.getName());
    private static final long MIN_RETRY_NANOS = 10_000_000L;

    /** Beats per renewal interval onto which leases are aligned. */
    private static final int PHASES = 2;
    /**
     * How long a new lease waits to be put on its beat: leases that arrive within it are admitted together, by
     * one run of the watchdog thread, whose every wake-up costs a park and an unpark (most of this thread's CPU
     * under short leases); a lease released within it never reaches the scheduler. At most a quarter of the
     * renewal interval: admitted before its first renewal is due (half an interval after the grant at the earliest).
     */
    private static final long ADMISSION_DELAY_NANOS = 10_000_000L;

    private final ScheduledThreadPoolExecutor scheduler;
    private final LeaseProvider provider;
    private final long originNanos = System.nanoTime();
    /** Renewals due in this beat, sent by one flush once every tick of the beat has run (watchdog thread only). */
    private final List<Due> due = new ArrayList<>();
    private boolean flushPending;
    /** Leases granted and not yet put on their beat. */
    private final ConcurrentLinkedQueue<Renewals> arriving = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean admissionPending = new AtomicBoolean();

    public Watchdog(String name, LeaseProvider provider) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name + "-watchdog");
            t.setDaemon(true);
            return t;
        });
        // A released lease's renewal must leave the queue at once, not at its next due time.
        executor.setRemoveOnCancelPolicy(true);
        this.scheduler = executor;
        this.provider = provider;
    }

    /** What became of each renewal of one lease; called on the thread that completed the renewal. */
    public interface Outcomes {

        Outcomes NONE = new Outcomes() {
            @Override
            public void renewed(long roundTripNanos) {
            }

            @Override
            public void failed(Throwable error) {
            }
        };

        /** The store confirmed a renewal, {@code roundTripNanos} after it was sent. */
        void renewed(long roundTripNanos);

        /** A renewal could not be sent or got no answer; it is tried again. */
        void failed(Throwable error);
    }

    /** Renews {@code state} every {@code intervalNanos}, the first time half an interval to one interval after the grant was asked for. */
    public void watch(LeaseState state, long intervalNanos) {
        watch(state, intervalNanos, Outcomes.NONE);
    }

    /** As {@link #watch(LeaseState, long)}, telling {@code outcomes} of each renewal. */
    public void watch(LeaseState state, long intervalNanos, Outcomes outcomes) {
        arriving.add(new Renewals(state, intervalNanos, outcomes));
        if (admissionPending.compareAndSet(false, true)) {
            try {
                scheduler.schedule(this::admit, Math.min(ADMISSION_DELAY_NANOS, intervalNanos / 4), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException closed) {
                // the manager is closed: the lease expires in the store by itself
                admissionPending.set(false);
            }
        }
    }

    /**
     * Puts every lease that arrived since the last admission on its beat (watchdog thread). A lease released
     * before it is admitted never touches the scheduler's queue: a short lease costs its holder a lock-free
     * enqueue, not two insertions and two removals under the queue's lock, nor a wake-up of this thread each.
     */
    private void admit() {
        admissionPending.set(false);
        for (Renewals renewals = arriving.poll(); renewals != null; renewals = arriving.poll()) {
            if (renewals.state.isValid()) {
                renewals.start();
            }
        }
    }

    private final class Renewals {
        private final LeaseState state;
        private final long intervalNanos;
        private final AtomicInteger inFlight = new AtomicInteger();
        private final AtomicBoolean retryPending = new AtomicBoolean();
        /** As many as one lease holds beats, plus one: enough for any round trip that can still keep the lease,
         *  and no pile on a store that stopped answering (the provider gives up on each after the lease). */
        private final int maxInFlight;

        private final Outcomes outcomes;

        Renewals(LeaseState state, long intervalNanos, Outcomes outcomes) {
            this.state = state;
            this.intervalNanos = intervalNanos;
            this.outcomes = outcomes;
            long lease = state.request() == null ? intervalNanos : state.request().leaseTime().toNanos();
            this.maxInFlight = (int) Math.min(64, lease / intervalNanos + 1);
        }

        /** The first renewal half an interval to one interval after the grant was asked for, on the phase grid. */
        void start() {
            long now = System.nanoTime();
            long dueAt = state.grant() == null ? now + intervalNanos : state.grant().sentAtNanos() + intervalNanos;
            long grid = Math.max(1, intervalNanos / PHASES);
            long aligned = originNanos + Math.floorDiv(dueAt - originNanos, grid) * grid;
            long first = Math.max(0, aligned - now);
            try {
                state.setRenewal(scheduler.scheduleAtFixedRate(this::tick, first, intervalNanos, TimeUnit.NANOSECONDS));
                armDeadlineCheck();
            } catch (RejectedExecutionException closed) {
                // the manager is closed: the lease expires in the store by itself
            }
        }

        void tick() {
            if (!state.isValid() || inFlight.get() >= maxInFlight) {
                return;
            }
            inFlight.incrementAndGet();
            due.add(new Due(this, new Renewal(state.request(), state.grant())));
            if (!flushPending) {
                flushPending = true;
                try {
                    // Runs after every tick already due now: the queue orders equal times by submission.
                    scheduler.execute(Watchdog.this::flush);
                } catch (RejectedExecutionException closed) {
                    flushPending = false;
                }
            }
        }

        void sent(CompletionStage<Boolean> reply, long sentAt) {
            state.renewalSent(sentAt);
            reply.whenComplete((ours, error) -> {
                inFlight.decrementAndGet();
                if (error != null) {
                    log.log(Level.DEBUG, () -> "renewal of " + state.fence() + " failed, trying again: " + error);
                    retrySoon();
                    state.checkAtRisk();
                    outcomes.failed(error);
                } else if (Boolean.TRUE.equals(ours)) {
                    state.renewed(sentAt);
                    armDeadlineCheck();
                    outcomes.renewed(System.nanoTime() - sentAt);
                } else {
                    state.markLost(LeaseLossReason.RENEWAL_REJECTED);
                }
            });
        }

        void notSent(RuntimeException e, long triedAt) {
            inFlight.decrementAndGet();
            state.renewalSent(triedAt);
            log.log(Level.DEBUG, () -> "renewal of " + state.fence() + " could not be sent, trying again: " + e);
            retrySoon();
            state.checkAtRisk();
            outcomes.failed(e);
        }

        private void retrySoon() {
            if (!state.isValid() || !retryPending.compareAndSet(false, true)) {
                return;
            }
            long delay = Math.min(intervalNanos, Math.max(MIN_RETRY_NANOS, state.remainingNanos() / 4));
            try {
                scheduler.schedule(() -> {
                    retryPending.set(false);
                    tick();
                }, delay, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException closed) {
                retryPending.set(false);
            }
        }

        /**
         * Notices expiry at the deadline itself, so listeners hear of it then, not at the next beat; and the risk of
         * it when the at-risk share of the lease is reached without a confirmed renewal since.
         */
        void armDeadlineCheck() {
            if (!state.isValid()) {
                return;
            }
            try {
                state.setDeadlineCheck(scheduler.schedule(state::isValid, state.remainingNanos() + 1_000_000L,
                        TimeUnit.NANOSECONDS));
                state.setRiskCheck(scheduler.schedule(state::checkAtRisk, Math.max(0, state.nanosUntilAtRisk()) + 1_000_000L,
                        TimeUnit.NANOSECONDS));
            } catch (RejectedExecutionException closed) {
                // the manager is closed
            }
        }
    }

    private record Due(Renewals renewals, Renewal renewal) {
    }

    /** Sends every renewal due in this beat in one {@link LeaseProvider#renewAll}; each answer goes to its own lease. */
    private void flush() {
        flushPending = false;
        if (due.isEmpty()) {
            return;
        }
        List<Due> batch = new ArrayList<>(due);
        due.clear();
        List<Renewal> renewals = new ArrayList<>(batch.size());
        for (Due d : batch) {
            renewals.add(d.renewal());
        }
        long sentAt = System.nanoTime();
        List<CompletionStage<Boolean>> replies;
        try {
            replies = provider.renewAll(renewals);
            if (replies.size() != batch.size()) {
                throw new IllegalStateException(provider.describe() + " answered " + replies.size() + " renewals for "
                        + batch.size());
            }
        } catch (RuntimeException e) {
            batch.forEach(d -> d.renewals().notSent(e, sentAt));
            return;
        }
        for (int i = 0; i < batch.size(); i++) {
            batch.get(i).renewals().sent(replies.get(i), sentAt);
        }
    }

    /** Renewals, deadline checks and admissions now in this watchdog's queue (for tests and diagnostics). */
    public int scheduledTasks() {
        return scheduler.getQueue().size();
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
