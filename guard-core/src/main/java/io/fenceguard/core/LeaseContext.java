package io.fenceguard.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * The leases a thread works under, for the layers below (SQL fence, HTTP header). Bound for a scope
 * and always unbound when the scope closes, exceptions included. Threads do not inherit it: carry it
 * into executors and {@code CompletableFuture} tasks with {@link #wrap} or {@link #propagating}.
 */
public final class LeaseContext {

    /** Each thread's bound leases, in a holder of its own: a bind and its close write a field, not the thread's map. */
    private static final ThreadLocal<Bound> BOUND = ThreadLocal.withInitial(Bound::new);

    private static final class Bound {
        List<Lease> leases = List.of();
    }

    private LeaseContext() {
    }

    /** The innermost bound lease. */
    public static Optional<Lease> current() {
        List<Lease> leases = BOUND.get().leases;
        return leases.isEmpty() ? Optional.empty() : Optional.of(leases.get(leases.size() - 1));
    }

    /** The innermost bound lease on {@code resource}. */
    public static Optional<Lease> current(ResourceName resource) {
        List<Lease> leases = BOUND.get().leases;
        for (int i = leases.size() - 1; i >= 0; i--) {
            if (leases.get(i).resource().equals(resource)) {
                return Optional.of(leases.get(i));
            }
        }
        return Optional.empty();
    }

    /** Every bound lease, outermost first. */
    public static List<Lease> all() {
        return BOUND.get().leases;
    }

    /**
     * The innermost bound lease, checked to be still valid: the fail-fast entry point of guarded calls.
     *
     * @throws LeaseLostException when it was lost
     * @throws FenceguardException when no lease is bound
     */
    public static Lease requireValid() {
        Lease lease = current().orElseThrow(() -> new FenceguardException("no lease is bound to this thread", null, null));
        lease.ensureValid();
        return lease;
    }

    /** Binds {@code lease} until the returned scope is closed. */
    public static Scope bind(Lease lease) {
        if (lease == null) {
            throw new IllegalArgumentException("lease must not be null");
        }
        Bound thread = BOUND.get();
        List<Lease> before = thread.leases;
        List<Lease> after;
        if (before.isEmpty()) {
            after = Collections.singletonList(lease);   // the usual case: one lease, bound and unbound per message
        } else {
            after = new ArrayList<>(before.size() + 1);
            after.addAll(before);
            after.add(lease);
            after = Collections.unmodifiableList(after);
        }
        thread.leases = after;
        return new Scope(before, lease);
    }

    /** Runs {@code task} with the leases bound now, wherever it runs. */
    public static Runnable wrap(Runnable task) {
        List<Lease> captured = BOUND.get().leases;
        return () -> {
            try (Scope ignored = restore(captured)) {
                task.run();
            }
        };
    }

    public static <T> Callable<T> wrap(Callable<T> task) {
        List<Lease> captured = BOUND.get().leases;
        return () -> {
            try (Scope ignored = restore(captured)) {
                return task.call();
            }
        };
    }

    public static <T> Supplier<T> wrapSupplier(Supplier<T> task) {
        List<Lease> captured = BOUND.get().leases;
        return () -> {
            try (Scope ignored = restore(captured)) {
                return task.get();
            }
        };
    }

    /** An executor that runs each task with the leases bound when it was submitted. */
    public static Executor propagating(Executor executor) {
        return task -> executor.execute(wrap(task));
    }

    private static Scope restore(List<Lease> leases) {
        Bound thread = BOUND.get();
        List<Lease> before = thread.leases;
        thread.leases = leases;
        return new Scope(before, null);
    }

    /**
     * Ends a binding; closing twice does nothing. A scope of {@link #bind} takes out just its own lease, so
     * that scopes closed out of order (two ShedLock locks unlocked in the order they were taken) never bind a
     * lease again that an earlier close took out; a scope of {@link #wrap} restores what the thread had.
     */
    public static final class Scope implements AutoCloseable {
        private final List<Lease> previous;
        private final Lease bound;
        private boolean closed;

        private Scope(List<Lease> previous, Lease bound) {
            this.previous = previous;
            this.bound = bound;
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            Bound thread = BOUND.get();
            List<Lease> now = bound == null ? previous : without(thread.leases, bound);
            // kept, not removed, when empty: the thread's next bind writes the same holder (an empty one holds
            // nothing, and the thread local is this class's own)
            thread.leases = now.isEmpty() ? List.of() : now;
        }

        /** {@code leases} without the innermost occurrence of {@code lease} (by identity). */
        private static List<Lease> without(List<Lease> leases, Lease lease) {
            if (leases.size() == 1 && leases.get(0) == lease) {
                return List.of();
            }
            for (int i = leases.size() - 1; i >= 0; i--) {
                if (leases.get(i) == lease) {
                    List<Lease> rest = new ArrayList<>(leases);
                    rest.remove(i);
                    return Collections.unmodifiableList(rest);
                }
            }
            return leases;
        }
    }
}
