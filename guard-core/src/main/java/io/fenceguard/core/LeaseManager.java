package io.fenceguard.core;

import io.fenceguard.core.internal.LeaseState;
import io.fenceguard.core.internal.LossEvents;
import io.fenceguard.core.internal.Watchdog;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.core.spi.LeaseRequest;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Grants leases with fencing tokens from a {@link LeaseProvider} (Redis, the in-memory one, or any
 * other store), renews them while held and tells when one is lost.
 *
 * <pre>{@code
 * LeaseManager guard = LeaseManager.of(provider);
 * try (Lease lease = guard.acquire("account:42", Duration.ofSeconds(5));
 *      LeaseContext.Scope scope = LeaseContext.bind(lease)) {
 *     dao.update(...);                                  // fenced with lease.token()
 * }
 * }</pre>
 *
 * <p>The manager never closes the provider: whoever created the provider closes it.
 */
public final class LeaseManager implements AutoCloseable {

    /** The most permits a semaphore may have: each is a slot in the store. */
    public static final int MAX_PERMITS = 1024;

    private static final System.Logger log = System.getLogger(LeaseManager.class.getName());

    private final LeaseProvider provider;
    private final LeaseConfig config;
    private final String clientId;
    private final Watchdog watchdog;
    private final LossEvents events;
    private final AtomicLong holderSequence = new AtomicLong();
    private final HeldLeases held = new HeldLeases(this);
    private final LeaseObservers observers = new LeaseObservers();
    private final Semaphores semaphores = new Semaphores(this, observers);
    private final ReleaseRequests releaseRequests;

    private LeaseManager(LeaseProvider provider, LeaseConfig config, Executor listenerExecutor) {
        this.provider = Objects.requireNonNull(provider, "provider");
        this.config = Objects.requireNonNull(config, "config");
        this.clientId = config.clientName() + "-" + UUID.randomUUID().toString().substring(0, 8);
        this.watchdog = new Watchdog(clientId, provider);
        this.events = LossEvents.on(listenerExecutor, clientId);
        this.releaseRequests = new ReleaseRequests(provider, held, observers);
    }

    public static LeaseManager of(LeaseProvider provider) {
        return of(provider, LeaseConfig.defaults());
    }

    public static LeaseManager of(LeaseProvider provider, LeaseConfig config) {
        return new LeaseManager(provider, config, null);
    }

    /**
     * With lease listeners (loss, risk, release requests) run on {@code listenerExecutor} (owned by the caller), each as its own task.
     * Without one the manager runs them on daemon threads of its own.
     */
    public static LeaseManager of(LeaseProvider provider, LeaseConfig config, Executor listenerExecutor) {
        return new LeaseManager(provider, config, Objects.requireNonNull(listenerExecutor, "listenerExecutor"));
    }

    /**
     * Acquires a lease, waiting up to {@code wait} for the current holder to release.
     *
     * @throws LeaseTimeoutException when it was not obtained in time
     * @throws LeaseUnavailableException when the store cannot be used
     * @throws LeaseLostException when this holder re-enters a lease it has lost
     */
    public Lease acquire(String resource, Duration wait) {
        return acquire(ResourceName.of(resource), wait);
    }

    public Lease acquire(ResourceName resource, Duration wait) {
        return acquire(resource, wait, LeaseMode.EXCLUSIVE);
    }

    /**
     * A {@link LeaseMode#SHARED shared} lease (a read lock): held together with other shared leases, never
     * with an exclusive one. Only on a provider whose {@link LeaseProvider#modes()} list it. A holder that
     * already has the resource, shared or exclusive, re-enters its lease.
     *
     * @throws UnsupportedOperationException when the provider grants no shared leases
     */
    public Lease acquireShared(String resource, Duration wait) {
        return acquireShared(ResourceName.of(resource), wait);
    }

    public Lease acquireShared(ResourceName resource, Duration wait) {
        return acquire(resource, wait, LeaseMode.SHARED);
    }

    private Lease acquire(ResourceName resource, Duration wait, LeaseMode mode) {
        Objects.requireNonNull(resource, "resource");
        requireWait(wait);
        if (!provider.modes().contains(mode)) {
            throw new UnsupportedOperationException("lease provider " + provider.describe() + " grants no "
                    + mode.name().toLowerCase() + " leases (it grants " + provider.modes() + "); '" + resource
                    + "' was not asked for");
        }
        Lease reentered = held.reenter(resource, mode);
        if (reentered != null) {
            return reentered;
        }
        return observers.observed(resource, () -> {
            LeaseRequest request = newRequest(resource, mode);
            Grant grant = provider.acquire(request, wait);
            return hold(request, grant, new Fence(resource, grant.token()));
        });
    }

    static void requireWait(Duration wait) {
        if (wait == null || wait.isNegative()) {
            throw new IllegalArgumentException("wait must be zero or positive, got " + wait);
        }
    }

    /** A holder id per lease: a lock left in the store by a failed release is never mistaken for a new one. */
    LeaseRequest newRequest(ResourceName resource, LeaseMode mode) {
        return new LeaseRequest(resource,
                clientId + ":" + Thread.currentThread().getId() + ":" + holderSequence.incrementAndGet(),
                config.leaseTime(), mode);
    }

    /**
     * One permit of a semaphore of {@code permits} on {@code resource}, fenced {@link PermitFencing#PER_SLOT per slot}:
     * see {@link #acquirePermit(ResourceName, int, PermitFencing, Duration)}.
     */
    public Lease acquirePermit(String resource, int permits, Duration wait) {
        return acquirePermit(ResourceName.of(resource), permits, PermitFencing.PER_SLOT, wait);
    }

    /**
     * One permit of a semaphore: at most {@code permits} holders on {@code resource} at once. A permit is an
     * exclusive lease on one of the slots {@code <resource>#0} to {@code <resource>#<permits - 1>}, held, renewed
     * and lost like any other lease (a holder that pauses past its lease loses its permit, and the slot goes to
     * the next holder). Its token is the slot's own ({@link PermitFencing#PER_SLOT}, the returned lease's resource
     * is the slot) or one from the resource's counter ({@link PermitFencing#PER_RESOURCE}, its resource is
     * {@code resource}). Every holder must ask with the same {@code permits} and fencing; a lease taken on a slot
     * name directly counts as a permit.
     *
     * <p>Free slots are tried one after the other from a random one; when all are held, the wait is spent on one
     * slot at a time (woken by its release as the store wakes waiters), looking at all of them again in between.
     * Every permit is a new lease: a holder that asks twice holds two permits.
     *
     * @throws LeaseTimeoutException when no slot came free within {@code wait}
     * @throws LeaseUnavailableException when the store cannot be used
     * @throws IllegalStateException when {@code fencing} is per resource and this thread holds an exclusive lease
     *                               on {@code resource} (taking its token would wait for itself)
     */
    public Lease acquirePermit(ResourceName resource, int permits, PermitFencing fencing, Duration wait) {
        return semaphores.acquirePermit(resource, permits, fencing, wait);
    }

    /** One attempt at a permit fenced per slot, no waiting: empty when all {@code permits} are held. */
    public Optional<Lease> tryAcquirePermit(String resource, int permits) {
        try {
            return Optional.of(acquirePermit(resource, permits, Duration.ZERO));
        } catch (LeaseTimeoutException busy) {
            return Optional.empty();
        }
    }

    /**
     * Leases on every one of {@code resources}, all or none, within one {@code wait}: see
     * {@link #acquireAll(Duration, ResourceName...)}.
     */
    public MultiLease acquireAll(Collection<String> resources, Duration wait) {
        Objects.requireNonNull(resources, "resources");
        return acquireAll(wait, resources.stream().map(ResourceName::of).toArray(ResourceName[]::new));
    }

    /**
     * Leases on every one of {@code resources}, all or none, within one {@code wait}. They are taken one after the
     * other in the canonical order of their names (whatever order they are given in), so that holders that ask for
     * overlapping sets never wait for each other in a cycle; when one cannot be obtained in time, or the store fails,
     * every one taken before is released and nothing stays held. Each resource gets its own lease and token, and a
     * resource this thread already holds is re-entered, as {@link #acquire} does. A lease held from before and not
     * in the set stands outside that order.
     *
     * @throws LeaseTimeoutException naming the resource that was not obtained in time
     * @throws LeaseUnavailableException when the store cannot be used
     * @throws LeaseLostException when a part was lost before the last one was obtained
     */
    public MultiLease acquireAll(Duration wait, ResourceName... resources) {
        return MultiLeaseAcquisition.acquireAll(this, wait, resources);
    }

    /** One attempt, no waiting: empty when another holder has it. */
    public Optional<Lease> tryAcquire(String resource) {
        return tryAcquire(ResourceName.of(resource));
    }

    public Optional<Lease> tryAcquire(ResourceName resource) {
        try {
            return Optional.of(acquire(resource, Duration.ZERO));
        } catch (LeaseTimeoutException busy) {
            return Optional.empty();
        }
    }

    /**
     * Runs {@code work} under a lease bound to this thread's {@link LeaseContext}; the lease is
     * released and unbound afterwards, whatever happens.
     */
    public <T, E extends Exception> T callWithLease(String resource, Duration wait, LeaseCallback<T, E> work) throws E {
        try (Lease lease = acquire(resource, wait); LeaseContext.Scope scope = LeaseContext.bind(lease)) {
            return work.call(lease);
        }
    }

    /** {@link #callWithLease(String, Duration, LeaseCallback)} with the configured default wait. */
    public <T, E extends Exception> T callWithLease(String resource, LeaseCallback<T, E> work) throws E {
        return callWithLease(resource, config.defaultWait(), work);
    }

    /**
     * Asks the holders of {@code resource} to release it; each holder decides ({@link Lease#onReleaseRequested}).
     * Where the provider carries requests ({@link LeaseProvider#releaseRequests()}), they reach holders in every
     * process that uses the same store; otherwise only the holders of this manager.
     *
     * @param reason why, for the holder and its logs
     * @return whether the resource was held when asked: in the store where it carries requests, else by this manager
     * @throws LeaseUnavailableException when the store cannot be used
     */
    public boolean requestRelease(String resource, String reason) {
        return requestRelease(ResourceName.of(resource), reason);
    }

    public boolean requestRelease(ResourceName resource, String reason) {
        Objects.requireNonNull(resource, "resource");
        if (reason == null) {
            throw new IllegalArgumentException("reason must not be null");
        }
        return releaseRequests.send(resource, reason);
    }

    /** Registers {@code listener}; the first one of a lease starts listening in the store, where it carries requests. */
    void onReleaseRequested(Lease lease, ReleaseRequestListener listener) {
        releaseRequests.listen(lease, listener);
    }

    /** Told of every lease this manager grants, fails to obtain or loses. */
    public void addObserver(LeaseObserver observer) {
        observers.add(observer);
    }

    /** The leases this manager holds now. */
    public List<LeaseSnapshot> heldLeases() {
        return held.snapshots();
    }

    public LeaseConfig config() {
        return config;
    }

    public LeaseProvider provider() {
        return provider;
    }

    public String clientId() {
        return clientId;
    }

    /** Whether this thread holds a lease of this manager's on {@code resource}. */
    boolean holdsOnThisThread(ResourceName resource) {
        return held.holdsOnThisThread(resource);
    }

    /** Holds what the store granted: renewed by the watchdog, watched in the store, re-entered on this thread. */
    Lease hold(LeaseRequest request, Grant grant, Fence fence) {
        LeaseState state = new LeaseState(fence, request, grant,
                config.leaseTime().toNanos(), grant.sentAtNanos(), events, config.atRiskShare());
        Lease lease = new Lease(state, this, request.holder());
        state.onLost(reason -> {
            log.log(Level.WARNING, () -> "lost " + lease + ": " + reason.describe());
            observers.lost(lease, reason);
        });
        state.onAtRisk(remainingNanos -> {
            Duration remaining = Duration.ofNanos(remainingNanos);
            log.log(Level.WARNING, () -> "at risk: " + lease + ": renewals are not confirmed and " + remaining.toMillis()
                    + " ms of the lease are left");
            observers.atRisk(lease, remaining);
        });
        held.add(state, lease);
        watchdog.watch(state, config.renewInterval().toNanos(), new Watchdog.Outcomes() {
            // Renewals complete on the store's threads: observers hear of them on the event executor.
            @Override
            public void renewed(long roundTripNanos) {
                if (!observers.isEmpty()) {
                    Duration roundTrip = Duration.ofNanos(roundTripNanos);
                    events.dispatch(() -> observers.renewed(lease, roundTrip));
                }
            }

            @Override
            public void failed(Throwable error) {
                if (!observers.isEmpty()) {
                    events.dispatch(() -> observers.renewalFailed(lease, error));
                }
            }
        });
        try {
            state.setStoreWatch(provider.watch(request, grant, state::markLost));
        } catch (RuntimeException e) {
            events.failed("watching " + lease + " in the store", e);
        }
        return lease;
    }

    void release(Lease lease) {
        LeaseState state = lease.state();
        if (!state.exit()) {
            return;
        }
        held.remove(state);
        try {
            if (!provider.release(state.request(), state.grant())) {
                log.log(Level.DEBUG, () -> lease + " was no longer held in the store at release");
            }
        } catch (FenceguardException e) {
            // The lock expires by itself; its holder id is never used again.
            log.log(Level.WARNING, () -> "could not release " + lease + ": " + e.getMessage());
        }
    }

    /** Stops renewing; leases still held expire in the store by themselves. Does not close the provider. */
    @Override
    public void close() {
        watchdog.close();
        events.close();
    }
}
