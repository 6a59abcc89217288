package io.fenceguard.reactor;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseLostException;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import java.time.Duration;
import io.fenceguard.core.LeaseContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Leases for reactive chains: {@code Mono<Lease>} acquisition for {@code Mono.usingWhen}/{@code Flux.usingWhen},
 * and {@link #withLease} that runs a publisher under a lease carried in its {@link ReactiveLeaseContext}.
 * The lease belongs to the chain, not to a thread: it is released when the chain completes, errors or is
 * cancelled, and a loss of the lease ends the chain with {@link LeaseLostException}.
 *
 * <p>The {@link LeaseManager} and its stores block (a wait for a busy lock, a round trip to Redis), so
 * they are never called on the caller's event loop: an acquisition waits on a thread of its own (see
 * {@link #acquire}), a release runs on {@code Schedulers.boundedElastic()} (or the scheduler given).
 *
 * <pre>{@code
 * ReactiveLeases leases = ReactiveLeases.of(leaseManager);
 * Mono<Void> deposit = leases.withLease("account:42", Duration.ofSeconds(5),
 *         ledger.deposit("42", 5));                       // R2DBC writes and WebClient calls carry the token
 * }</pre>
 */
public final class ReactiveLeases {

    private static final Logger log = LoggerFactory.getLogger(ReactiveLeases.class);

    private final LeaseManager manager;
    private final Scheduler scheduler;

    private ReactiveLeases(LeaseManager manager, Scheduler scheduler) {
        this.manager = manager;
        this.scheduler = scheduler;
    }

    /** Blocking calls on {@code Schedulers.boundedElastic()}. */
    public static ReactiveLeases of(LeaseManager manager) {
        return of(manager, Schedulers.boundedElastic());
    }

    /** Blocking calls on {@code scheduler} (it must allow blocking). */
    public static ReactiveLeases of(LeaseManager manager, Scheduler scheduler) {
        return new ReactiveLeases(Objects.requireNonNull(manager, "manager"), Objects.requireNonNull(scheduler, "scheduler"));
    }

    public LeaseManager manager() {
        return manager;
    }

    /**
     * A lease on {@code resource}, waiting at most {@code wait}; errors with {@code LeaseTimeoutException}
     * when it is not obtained in time. Each subscription acquires its own lease. When the subscriber
     * cancels while the store is still being asked, a lease granted afterwards is released at once: a
     * cancelled acquisition never leaves a lock behind. The wait runs on a thread of its own (a pooled
     * thread could re-enter another chain's lease); leases bound in the subscriber's context are
     * re-entered, as on a thread. The caller releases the lease it received
     * ({@link #release}); {@link #withLease} does that itself.
     */
    public Mono<Lease> acquire(String resource, Duration wait) {
        return acquire(ResourceName.of(resource), wait);
    }

    public Mono<Lease> acquire(ResourceName resource, Duration wait) {
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(wait, "wait");
        return Mono.<Lease>create(sink -> {
            // PENDING -> DELIVERED by the worker, or PENDING -> CANCELLED by the subscriber: whoever loses
            // the race knows who owns the lease (the subscriber, or the worker, which releases it).
            AtomicInteger state = new AtomicInteger(PENDING);
            sink.onCancel(() -> state.compareAndSet(PENDING, CANCELLED));
            List<Lease> chain = ReactiveLeaseContext.all(sink.contextView());
            startAcquirer(() -> {
                Lease lease;
                List<LeaseContext.Scope> scopes = new ArrayList<>(chain.size());
                try {
                    // The chain's own leases, so that a nested acquisition of one of them re-enters it.
                    chain.forEach(bound -> scopes.add(LeaseContext.bind(bound)));
                    lease = manager.acquire(resource, wait);
                } catch (Throwable e) {
                    if (state.get() != CANCELLED) {       // nobody listens to a cancelled acquisition
                        sink.error(e);
                    }
                    return;
                } finally {
                    for (int i = scopes.size() - 1; i >= 0; i--) {
                        scopes.get(i).close();
                    }
                }
                if (state.compareAndSet(PENDING, DELIVERED)) {
                    sink.success(lease);
                } else {
                    closeQuietly(lease);
                }
            });
        }).doOnDiscard(Lease.class, ReactiveLeases::closeQuietly);
    }

    /**
     * Each acquisition waits on a thread of its own, never on a pooled one: the manager lets a thread that
     * holds a lease re-enter it, and a pooled thread that had acquired for one chain would let an unrelated
     * chain re-enter that chain's lease. Thread ids are never reused, so a fresh thread holds nothing.
     * (Re-entry within one chain goes through the chain's context, bound above.)
     */
    private static void startAcquirer(Runnable task) {
        Thread thread = new Thread(task, "fenceguard-reactive-acquire-" + ACQUIRERS.incrementAndGet());
        thread.setDaemon(true);
        thread.start();
    }

    private static final AtomicLong ACQUIRERS = new AtomicLong();
    private static final int PENDING = 0;
    private static final int DELIVERED = 1;
    private static final int CANCELLED = 2;

    /** Releases {@code lease} on the blocking scheduler; completes when the store has answered. */
    public Mono<Void> release(Lease lease) {
        return Mono.fromRunnable(lease::close).subscribeOn(scheduler).then();
    }

    /**
     * Runs {@code work} under a lease on {@code resource}: acquired when subscribed, bound to the work's
     * Reactor Context, released after the work completes, errors or is cancelled. When the lease is lost
     * meanwhile (the store refused a renewal, or it ran out), the work is cancelled and the result errors
     * with {@link LeaseLostException}.
     */
    public <T> Mono<T> withLease(String resource, Duration wait, Mono<T> work) {
        return withLease(resource, wait, (Lease lease) -> work);
    }

    /** As {@link #withLease(String, Duration, Mono)}, with the work built from the lease. */
    public <T> Mono<T> withLease(String resource, Duration wait, Function<Lease, Mono<T>> work) {
        return Mono.usingWhen(acquire(resource, wait),
                lease -> guarded(lease, Flux.from(work.apply(lease))).singleOrEmpty(),
                this::release, (lease, error) -> release(lease), this::release);
    }

    /** As {@link #withLease(String, Duration, Mono)}, for a {@code Flux}. */
    public <T> Flux<T> withLease(String resource, Duration wait, Flux<T> work) {
        return withLeaseMany(resource, wait, lease -> work);
    }

    /** As {@link #withLease(String, Duration, Flux)}, with the work built from the lease. */
    public <T> Flux<T> withLeaseMany(String resource, Duration wait, Function<Lease, ? extends Publisher<T>> work) {
        return Flux.usingWhen(acquire(resource, wait), lease -> guarded(lease, Flux.from(work.apply(lease))),
                this::release, (lease, error) -> release(lease), this::release);
    }

    /**
     * {@code work} under {@code lease}: bound in its context, cut short with {@link LeaseLostException}
     * when the lease is lost.
     */
    private static <T> Flux<T> guarded(Lease lease, Flux<T> work) {
        return Flux.defer(() -> {
            Sinks.Empty<Void> lost = Sinks.empty();
            AtomicBoolean cut = new AtomicBoolean();
            lease.onLost((l, reason) -> lost.tryEmitEmpty());
            return work.takeUntilOther(lost.asMono().then(Mono.fromCallable(() -> cut.getAndSet(true))))
                    .concatWith(Mono.defer(() -> {
                        if (cut.get() && lease.lossReason().isPresent()) {
                            return Mono.error(new LeaseLostException(lease.resource(), lease.token(),
                                    lease.lossReason().get()));
                        }
                        return Mono.empty();
                    }));
        }).contextWrite(ReactiveLeaseContext.with(lease));
    }

    private static void closeQuietly(Lease lease) {
        try {
            lease.close();
        } catch (RuntimeException e) {
            log.warn("fenceguard: releasing {} after a cancelled acquisition failed; it runs out by itself", lease, e);
        }
    }

    @Override
    public String toString() {
        return "ReactiveLeases[" + manager + ", " + scheduler + "]";
    }
}
