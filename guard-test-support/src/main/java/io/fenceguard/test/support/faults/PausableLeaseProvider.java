package io.fenceguard.test.support.faults;

import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.LeaseMode;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.core.spi.LeaseRequest;
import io.fenceguard.core.spi.ReleaseRequestChannel;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Fault injection for tests: a {@link LeaseProvider} around any other whose renewals can be withheld
 * for a while, per resource or for all, as if the holder were frozen by a stop-the-world GC pause.
 * A withheld renewal is never sent to the store; its stage fails with {@link RenewalWithheldException},
 * which the manager treats as an unknown answer, so the lease runs out in the store and the holder
 * finds it expired. {@link #pauseHolder} also holds this holder's acquisitions of the resource for the pause
 * (a frozen process does not compete for the lock it lost). Everything else (release, watch, release requests) goes straight to
 * the wrapped provider.
 *
 * <pre>{@code
 * PausableLeaseProvider provider = PausableLeaseProvider.wrap(RedisLeaseProvider.of(RedissonScriptClient.of(redisson)));
 * LeaseManager manager = LeaseManager.of(provider, config);
 * Lease lease = manager.acquire("account:1", wait);
 * provider.pauseRenewals(lease.resource(), Duration.ofSeconds(30));   // the pause begins
 * }</pre>
 */
public final class PausableLeaseProvider implements LeaseProvider {

    /** No pause of all resources: an end that lies in the past. */
    private static final long NONE = Long.MIN_VALUE;

    private final LeaseProvider delegate;
    /** {@link System#nanoTime()} at which each resource's pause ends. */
    private final Map<ResourceName, Long> pausedUntil = new ConcurrentHashMap<>();
    /** {@link System#nanoTime()} at which each resource's acquisitions may reach the store again. */
    private final Map<ResourceName, Long> acquisitionsPausedUntil = new ConcurrentHashMap<>();
    private final AtomicLong allPausedUntil = new AtomicLong(NONE);
    private final AtomicLong withheld = new AtomicLong();

    private PausableLeaseProvider(LeaseProvider delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** Wraps {@code delegate}; closing the wrapper closes it. */
    public static PausableLeaseProvider wrap(LeaseProvider delegate) {
        return new PausableLeaseProvider(delegate);
    }

    /** Withholds the renewals of {@code resource} from now for {@code pause}; a longer pause already running is kept. */
    public void pauseRenewals(ResourceName resource, Duration pause) {
        Objects.requireNonNull(resource, "resource");
        long until = endOf(pause);
        pausedUntil.merge(resource, until, PausableLeaseProvider::later);
    }

    /**
     * Freezes this holder on {@code resource} from now for {@code pause}: its renewals are withheld and its
     * acquisitions wait for the pause to end (within their own wait; a wait that ends first is a timeout, as
     * if another holder had the lock).
     */
    public void pauseHolder(ResourceName resource, Duration pause) {
        pauseRenewals(resource, pause);
        acquisitionsPausedUntil.merge(resource, endOf(pause), PausableLeaseProvider::later);
    }

    /** Withholds every renewal from now for {@code pause}; a longer pause already running is kept. */
    public void pauseAllRenewals(Duration pause) {
        long until = endOf(pause);
        allPausedUntil.accumulateAndGet(until, PausableLeaseProvider::later);
    }

    /** Ends every pause at once: the next renewals reach the store again. */
    public void resumeRenewals() {
        pausedUntil.clear();
        acquisitionsPausedUntil.clear();
        allPausedUntil.set(NONE);
    }

    /** Whether renewals of {@code resource} are withheld now. */
    public boolean isPaused(ResourceName resource) {
        long now = System.nanoTime();
        long all = allPausedUntil.get();
        if (all != NONE && now - all < 0) {
            return true;
        }
        Long until = pausedUntil.get(resource);
        return until != null && now - until < 0;
    }

    /** How many renewals were withheld so far, so that a test can tell a pause really held one back. */
    public long withheldRenewals() {
        return withheld.get();
    }

    /** The provider that does the real work. */
    public LeaseProvider delegate() {
        return delegate;
    }

    @Override
    public Grant acquire(LeaseRequest request, Duration wait) {
        Long until = acquisitionsPausedUntil.get(request.resource());
        long start = System.nanoTime();
        if (until != null && start - until < 0) {
            long waitNanos = wait.toNanos();
            long held = Math.min(until - start, waitNanos);
            try {
                TimeUnit.NANOSECONDS.sleep(held);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new FenceguardException("interrupted while the holder of '" + request.resource()
                        + "' is paused (fault injection)", request.resource(), null, e);
            }
            if (held >= waitNanos) {
                throw new LeaseTimeoutException(request.resource(), wait, "its holder is paused (fault injection)");
            }
            wait = Duration.ofNanos(Math.max(0, waitNanos - (System.nanoTime() - start)));
        }
        return delegate.acquire(request, wait);
    }

    @Override
    public CompletionStage<Boolean> renew(LeaseRequest request, Grant grant) {
        if (isPaused(request.resource())) {
            withheld.incrementAndGet();
            return CompletableFuture.failedFuture(new RenewalWithheldException(request.resource()));
        }
        return delegate.renew(request, grant);
    }

    @Override
    public boolean release(LeaseRequest request, Grant grant) {
        return delegate.release(request, grant);
    }

    @Override
    public AutoCloseable watch(LeaseRequest request, Grant grant, Consumer<LeaseLossReason> lost) {
        return delegate.watch(request, grant, lost);
    }

    @Override
    public Optional<ReleaseRequestChannel> releaseRequests() {
        return delegate.releaseRequests();
    }

    @Override
    public Set<LeaseMode> modes() {
        return delegate.modes();
    }

    @Override
    public String describe() {
        return "pausable " + delegate.describe();
    }

    @Override
    public void close() {
        delegate.close();
    }

    private static long endOf(Duration pause) {
        Objects.requireNonNull(pause, "pause");
        if (pause.isNegative() || pause.isZero()) {
            throw new IllegalArgumentException("pause must be positive, got " + pause);
        }
        return System.nanoTime() + pause.toNanos();
    }

    /** The later of two {@link System#nanoTime()} values (compared by difference, as nanoTime may wrap). */
    private static long later(long a, long b) {
        if (a == NONE) {
            return b;
        }
        return a - b >= 0 ? a : b;
    }

    /** The stage of a renewal that a pause kept from the store. */
    public static final class RenewalWithheldException extends IllegalStateException {

        private final ResourceName resource;

        RenewalWithheldException(ResourceName resource) {
            super("renewal of '" + resource + "' withheld: its holder is paused (fault injection)");
            this.resource = resource;
        }

        public ResourceName resource() {
            return resource;
        }
    }
}
