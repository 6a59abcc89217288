package io.fenceguard.reactor;

import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.ResourceName;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * The leases a reactive chain works under, carried in its Reactor {@link Context} rather than on a
 * thread: the reactive counterpart of {@link LeaseContext}. Whatever thread an operator runs on, the
 * layers that read it (the R2DBC fence, the WebClient filter) see the lease of the chain they serve.
 * Bound with {@link #with(Lease)} (or {@link ReactiveLeases#withLease}), read with {@link #current()}.
 */
public final class ReactiveLeaseContext {

    /** The context key; its value is the list of bound leases, outermost first. */
    private static final Object KEY = ReactiveLeaseContext.class;

    private ReactiveLeaseContext() {
    }

    /** The innermost lease of the subscribing chain; empty when none is bound. */
    public static Mono<Lease> current() {
        return Mono.deferContextual(context -> Mono.justOrEmpty(current(context)));
    }

    /**
     * The innermost lease, checked to be still valid: errors with {@code LeaseLostException} when it
     * was lost, and with {@link FenceguardException} when none is bound.
     */
    public static Mono<Lease> requireValid() {
        return Mono.deferContextual(context -> {
            Optional<Lease> lease = current(context);
            if (lease.isEmpty()) {
                return Mono.error(new FenceguardException("no lease is bound to this reactive chain's context", null, null));
            }
            try {
                lease.get().ensureValid();
            } catch (FenceguardException e) {
                return Mono.error(e);
            }
            return Mono.just(lease.get());
        });
    }

    /** The innermost lease in {@code context}. */
    public static Optional<Lease> current(ContextView context) {
        List<Lease> leases = all(context);
        return leases.isEmpty() ? Optional.empty() : Optional.of(leases.get(leases.size() - 1));
    }

    /** The innermost lease on {@code resource} in {@code context}. */
    public static Optional<Lease> current(ContextView context, ResourceName resource) {
        List<Lease> leases = all(context);
        for (int i = leases.size() - 1; i >= 0; i--) {
            if (leases.get(i).resource().equals(resource)) {
                return Optional.of(leases.get(i));
            }
        }
        return Optional.empty();
    }

    /** Every lease bound in {@code context}, outermost first. */
    @SuppressWarnings("unchecked")
    public static List<Lease> all(ContextView context) {
        return (List<Lease>) context.getOrDefault(KEY, (Object) List.of());
    }

    /**
     * A context function for {@code contextWrite}: what runs upstream of it works under {@code lease}
     * (innermost), on top of the leases bound further down the chain.
     */
    public static Function<Context, Context> with(Lease lease) {
        if (lease == null) {
            throw new IllegalArgumentException("lease must not be null");
        }
        return context -> {
            List<Lease> before = all(context);
            List<Lease> after = new ArrayList<>(before.size() + 1);
            after.addAll(before);
            after.add(lease);
            return context.put(KEY, Collections.unmodifiableList(after));
        };
    }

    /**
     * Runs blocking {@code work} (plain JDBC, a blocking client) on {@code boundedElastic} with the
     * chain's leases bound to that thread's {@link LeaseContext}, so the blocking layers below see them.
     */
    public static <T> Mono<T> blocking(Callable<T> work) {
        return blocking(work, Schedulers.boundedElastic());
    }

    /** As {@link #blocking(Callable)}, on {@code scheduler}. */
    public static <T> Mono<T> blocking(Callable<T> work, Scheduler scheduler) {
        return Mono.deferContextual(context -> Mono.fromCallable(() -> {
            List<LeaseContext.Scope> scopes = new ArrayList<>();
            try {
                for (Lease lease : all(context)) {
                    scopes.add(LeaseContext.bind(lease));
                }
                return work.call();
            } finally {
                for (int i = scopes.size() - 1; i >= 0; i--) {
                    scopes.get(i).close();
                }
            }
        })).subscribeOn(scheduler);
    }
}
