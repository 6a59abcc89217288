package io.fenceguard.core.internal;

import java.lang.System.Logger.Level;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs lease listeners (loss, risk, release requests), each as its own task on an executor of their own: never on the watchdog's
 * thread or a store client's I/O thread, so a slow listener delays no renewal, and a throwing one
 * stops no other listener.
 */
public final class LossEvents implements AutoCloseable {

    private static final System.Logger log = System.getLogger(LossEvents.class.getName());

    private final Executor executor;
    private final ExecutorService owned;

    private LossEvents(Executor executor, ExecutorService owned) {
        this.executor = executor;
        this.owned = owned;
    }

    /** On {@code executor}, which the caller owns; or, when null, on daemon threads of its own. */
    public static LossEvents on(Executor executor, String name) {
        if (executor != null) {
            return new LossEvents(executor, null);
        }
        AtomicInteger count = new AtomicInteger();
        ExecutorService own = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, name + "-lease-events-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        return new LossEvents(own, own);
    }

    /** A listener is told even when the executor refuses (shut down): on a thread of its own then. */
    public void dispatch(Runnable listener) {
        Runnable isolated = () -> runIsolated(listener);
        try {
            executor.execute(isolated);
        } catch (RejectedExecutionException e) {
            Thread t = new Thread(isolated, "fenceguard-lease-event");
            t.setDaemon(true);
            t.start();
        }
    }

    /** Tasks told one after another in the order given, on this executor: for events whose order means something. */
    public Lane lane() {
        return new Lane();
    }

    public void failed(String what, Throwable t) {
        log.log(Level.WARNING, what + " failed: " + t, t);
    }

    @Override
    public void close() {
        if (owned != null) {
            owned.shutdown();
        }
    }

    private void runIsolated(Runnable listener) {
        try {
            listener.run();
        } catch (Throwable t) {
            failed("a lease listener", t);
        }
    }

    /**
     * One task at a time, in the order dispatched, each still on the events executor: a lease's release requests
     * reach its listeners in the order the store told them. A slow listener holds back only its own lane.
     */
    public final class Lane {

        private final Queue<Runnable> waiting = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean draining = new AtomicBoolean();

        private Lane() {
        }

        public void dispatch(Runnable listener) {
            waiting.add(listener);
            drainUnlessDraining();
        }

        private void drainUnlessDraining() {
            if (draining.compareAndSet(false, true)) {
                LossEvents.this.dispatch(this::drain);
            }
        }

        private void drain() {
            try {
                for (Runnable next = waiting.poll(); next != null; next = waiting.poll()) {
                    runIsolated(next);
                }
            } finally {
                draining.set(false);
                // one added after the last poll but before the flag fell would wait for the next dispatch
                if (!waiting.isEmpty()) {
                    drainUnlessDraining();
                }
            }
        }
    }
}
