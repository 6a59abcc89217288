package io.fenceguard.core.internal;

import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.spi.LeaseProvider;
import java.lang.System.Logger.Level;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Renews leases while their holder lives, and marks a lease lost when the store refuses a renewal or
 * the lease runs out before one succeeds. A failed renewal is simply tried again at the next tick.
 * Its one thread only sends renewals: listeners run elsewhere ({@link LossEvents}).
 */
public final class Watchdog implements AutoCloseable {

    private static final System.Logger log = System.getLogger(Watchdog.class.getName());

    private final ScheduledExecutorService scheduler;
    private final LeaseProvider provider;

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

    /** Renews {@code state} every {@code intervalNanos}. */
    public void watch(LeaseState state, long intervalNanos) {
        AtomicBoolean inFlight = new AtomicBoolean();
        Runnable tick = () -> {
            if (!state.isValid() || !inFlight.compareAndSet(false, true)) {
                return;
            }
            long sentAt = System.nanoTime();
            try {
                CompletionStage<Boolean> reply = provider.renew(state.request(), state.grant());
                reply.whenComplete((ours, error) -> {
                    inFlight.set(false);
                    if (error != null) {
                        log.log(Level.DEBUG, () -> "renewal of " + state.fence() + " failed, trying again at the next tick: " + error);
                    } else if (Boolean.TRUE.equals(ours)) {
                        state.renewed(sentAt);
                    } else {
                        state.markLost(LeaseLossReason.RENEWAL_REJECTED);
                    }
                });
            } catch (RuntimeException e) {
                inFlight.set(false);
                log.log(Level.DEBUG, () -> "renewal of " + state.fence() + " could not be sent: " + e);
            }
        };
        state.setRenewal(scheduler.scheduleAtFixedRate(tick, intervalNanos, intervalNanos, TimeUnit.NANOSECONDS));
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
