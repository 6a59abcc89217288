package io.fenceguard.core.internal;

import io.fenceguard.core.LeaseLossReason;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews leases while their holder lives, and marks a lease lost when Redis refuses a renewal or the
 * lease runs out before one succeeds. A failed renewal is simply tried again at the next tick.
 */
public final class Watchdog implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Watchdog.class);

    private final ScheduledExecutorService scheduler;

    public Watchdog(String name) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name + "-watchdog");
            t.setDaemon(true);
            return t;
        });
        // A released lease's renewal must leave the queue at once, not at its next due time.
        executor.setRemoveOnCancelPolicy(true);
        this.scheduler = executor;
    }

    /** Renews {@code state} every {@code intervalNanos} with {@code renew}, which answers "still ours". */
    public void watch(LeaseState state, long intervalNanos,
                      Function<LeaseState, CompletionStage<Boolean>> renew) {
        AtomicBoolean inFlight = new AtomicBoolean();
        Runnable tick = () -> {
            if (!state.isValid()) {
                return;
            }
            long now = System.nanoTime();
            if (state.renewalSuspended(now) || !inFlight.compareAndSet(false, true)) {
                return;
            }
            try {
                renew.apply(state).whenComplete((ours, error) -> {
                    inFlight.set(false);
                    if (error != null) {
                        log.debug("renewal of {} failed, trying again at the next tick", state.resource(), error);
                    } else if (ours) {
                        state.renewed(now);
                    } else {
                        state.markLost(LeaseLossReason.RENEWAL_REJECTED);
                    }
                });
            } catch (RuntimeException e) {
                inFlight.set(false);
                log.debug("renewal of {} could not be sent", state.resource(), e);
            }
        };
        state.setRenewal(scheduler.scheduleAtFixedRate(tick, intervalNanos, intervalNanos, TimeUnit.NANOSECONDS));
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
