package io.fenceguard.core;

import io.fenceguard.core.internal.ContentionRetry;
import io.fenceguard.core.internal.LeaseKeys;
import io.fenceguard.core.internal.LeaseState;
import io.fenceguard.core.internal.RedisCalls;
import io.fenceguard.core.internal.RedisLeaseScripts;
import io.fenceguard.core.internal.ReleaseWaiter;
import io.fenceguard.core.internal.Watchdog;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Grants leases with fencing tokens on Redis, through a {@link RedissonClient} that the application
 * owns (this class never creates or closes one).
 *
 * <pre>{@code
 * LeaseManager guard = LeaseManager.of(redisson);
 * try (Lease lease = guard.acquire("account:42", Duration.ofSeconds(5));
 *      LeaseContext.Scope scope = LeaseContext.bind(lease)) {
 *     dao.update(...);                                  // fenced with lease.token()
 * }
 * }</pre>
 */
public final class LeaseManager implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaseManager.class);

    private final LeaseConfig config;
    private final String clientId;
    private final RedisLeaseScripts scripts;
    private final RedisCalls calls;
    private final ReleaseWaiter waiter;
    private final ContentionRetry contention;
    private final Watchdog watchdog;
    private final Map<String, LeaseState> held = new ConcurrentHashMap<>();
    private final List<LeaseObserver> observers = new CopyOnWriteArrayList<>();

    private LeaseManager(RedissonClient redisson, LeaseConfig config, CircuitBreaker breaker) {
        this.config = Objects.requireNonNull(config, "config");
        this.clientId = config.clientName() + "-" + UUID.randomUUID().toString().substring(0, 8);
        this.scripts = new RedisLeaseScripts(Objects.requireNonNull(redisson, "redisson"));
        this.calls = RedisCalls.of(config, breaker);
        this.waiter = new ReleaseWaiter(redisson);
        this.contention = new ContentionRetry(config);
        this.watchdog = new Watchdog(clientId);
    }

    public static LeaseManager of(RedissonClient redisson) {
        return of(redisson, LeaseConfig.defaults());
    }

    public static LeaseManager of(RedissonClient redisson, LeaseConfig config) {
        return new LeaseManager(redisson, config, null);
    }

    /** With a circuit breaker from the application's registry, so that it shows in its metrics. */
    public static LeaseManager of(RedissonClient redisson, LeaseConfig config, CircuitBreaker breaker) {
        return new LeaseManager(redisson, config, breaker);
    }

    /**
     * Acquires a lease, waiting up to {@code wait} for the current holder to release (woken by Redis
     * pub/sub) or for its lock-delay to pass.
     *
     * @throws LeaseTimeoutException when it was not obtained in time
     * @throws LeaseUnavailableException when Redis cannot be used
     * @throws LeaseLostException when this holder re-enters a lease it has lost
     */
    public Lease acquire(String resource, Duration wait) {
        return acquire(ResourceName.of(resource), wait);
    }

    public Lease acquire(ResourceName resource, Duration wait) {
        Objects.requireNonNull(resource, "resource");
        if (wait == null || wait.isNegative()) {
            throw new IllegalArgumentException("wait must be zero or positive, got " + wait);
        }
        String holder = holderFor(resource);
        Lease reentered = reenter(resource, holder);
        if (reentered != null) {
            return reentered;
        }
        LeaseKeys keys = LeaseKeys.of(config.keyPrefix(), resource);
        long start = System.nanoTime();
        ContentionRetry.Attempt attempt = attempt(resource, keys, holder);
        if (!attempt.acquired() && !wait.isZero()) {
            long deadline = System.nanoTime() + wait.toNanos();
            try (ReleaseWaiter.Subscription releases = calls.call(resource, "wait for", () -> waiter.subscribe(keys))) {
                attempt = contention.await(resource, deadline, releases, () -> attempt(resource, keys, holder));
            }
        }
        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        if (!attempt.acquired()) {
            observers.forEach(o -> o.notObtained(resource, waited));
            throw new LeaseTimeoutException(resource, wait, attempt.describe());
        }
        Lease lease = newLease(resource, keys, holder, attempt);
        observers.forEach(o -> o.acquired(lease, waited));
        return lease;
    }

    /** One attempt, no waiting: empty when another holder has it or its lock-delay runs. */
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

    /** Told of every lease this manager grants, fails to obtain or loses. */
    public void addObserver(LeaseObserver observer) {
        observers.add(Objects.requireNonNull(observer, "observer"));
    }

    /** The leases this manager holds now, one per resource and holder. */
    public List<LeaseSnapshot> heldLeases() {
        return held.values().stream().map(state -> new LeaseSnapshot(state.resource(), state.token(),
                state.holder(), Duration.ofNanos(state.remainingNanos()), state.isValid())).toList();
    }

    public LeaseConfig config() {
        return config;
    }

    public String clientId() {
        return clientId;
    }

    public CircuitBreaker circuitBreaker() {
        return calls.breaker();
    }

    private ContentionRetry.Attempt attempt(ResourceName resource, LeaseKeys keys, String holder) {
        long sentAt = System.nanoTime();
        long[] reply = calls.call(resource, "acquire", () -> scripts.acquire(keys, holder,
                config.leaseTime().toMillis(), config.lockDelay().toMillis(), config.tokenIdleTtl().toMillis()));
        return new ContentionRetry.Attempt(reply[0], reply[1], sentAt);
    }

    private String holderFor(ResourceName resource) {
        // Re-entry follows the context, so a lease carried into an executor can be re-entered there.
        for (Lease lease : LeaseContext.all()) {
            if (lease.isFrom(this) && lease.resource().equals(resource)) {
                return lease.holder();
            }
        }
        return clientId + ":" + Thread.currentThread().getId();
    }

    private Lease reenter(ResourceName resource, String holder) {
        LeaseState state = held.get(heldKey(resource, holder));
        if (state == null) {
            return null;
        }
        if (state.enter()) {
            return new Lease(state, this);
        }
        state.isValid();
        if (state.lossReason() != null) {
            throw new LeaseLostException(resource, state.token(), state.lossReason());
        }
        return null;
    }

    private Lease newLease(ResourceName resource, LeaseKeys keys, String holder, ContentionRetry.Attempt attempt) {
        LeaseState state = new LeaseState(resource, FencingToken.of(attempt.value()), holder, keys,
                config.leaseTime().toNanos(), attempt.sentAtNanos());
        Lease lease = new Lease(state, this);
        state.onLost(reason -> {
            log.warn("lost {}: {}", lease, reason.describe());
            observers.forEach(o -> o.lost(lease, reason));
        });
        held.put(heldKey(resource, holder), state);
        watchdog.watch(state, config.renewInterval().toNanos(), s -> scripts.renew(s.keys(), s.holder(),
                config.leaseTime().toMillis(), config.lockDelay().toMillis(), config.tokenIdleTtl().toMillis()));
        return lease;
    }

    void release(Lease lease) {
        LeaseState state = lease.state();
        if (!state.exit()) {
            return;
        }
        held.remove(heldKey(state.resource(), state.holder()), state);
        try {
            boolean ours = calls.call(state.resource(), "release", () -> scripts.release(state.keys(), state.holder()));
            if (!ours) {
                log.debug("{} was no longer held in Redis at release", lease);
            }
        } catch (GuardException e) {
            // The lock expires by itself; lock-delay then applies as for a lost holder.
            log.warn("could not release {}: {}", lease, e.getMessage());
        }
    }

    private static String heldKey(ResourceName resource, String holder) {
        return holder + "\n" + resource.value();
    }

    /** Stops renewing; leases still held expire in Redis by themselves. */
    @Override
    public void close() {
        watchdog.close();
    }
}
