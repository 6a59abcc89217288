package io.fenceguard.example.chaos;

import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.core.spi.LeaseRequest;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The lease store as a frozen holder sees it: renewals of a paused holder never reach the wrapped
 * provider, so its lease runs out in the store while it sleeps, as it would in a stop-the-world GC
 * pause. A pause concerns one holder (one lease), never its resource: the next holder of the same
 * resource renews as usual. Everything else goes straight to the wrapped provider.
 */
public final class ChaosLeaseProvider implements LeaseProvider {

    private final LeaseProvider delegate;
    /** {@link System#nanoTime()} at which each paused holder's pause ends. */
    private final Map<String, Long> pausedUntil = new ConcurrentHashMap<>();

    public ChaosLeaseProvider(LeaseProvider delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** Withholds the renewals of {@code holder} (a lease's {@code holder()}) from now for {@code pause}. */
    public void pauseRenewals(String holder, Duration pause) {
        Objects.requireNonNull(holder, "holder");
        if (pause == null || pause.isNegative() || pause.isZero()) {
            throw new IllegalArgumentException("pause must be positive, got " + pause);
        }
        long until = System.nanoTime() + pause.toNanos();
        pausedUntil.merge(holder, until, (a, b) -> a - b >= 0 ? a : b);
    }

    /** Whether the renewals of {@code holder} are withheld now; forgets a pause that is over. */
    boolean isPaused(String holder) {
        Long until = pausedUntil.get(holder);
        if (until == null) {
            return false;
        }
        if (System.nanoTime() - until < 0) {
            return true;
        }
        pausedUntil.remove(holder, until);
        return false;
    }

    /** The provider that does the real work. */
    public LeaseProvider delegate() {
        return delegate;
    }

    @Override
    public Grant acquire(LeaseRequest request, Duration wait) {
        return delegate.acquire(request, wait);
    }

    /** A withheld renewal fails as an unknown answer would: the manager tries again and the lease runs out. */
    @Override
    public CompletionStage<Boolean> renew(LeaseRequest request, Grant grant) {
        if (isPaused(request.holder())) {
            return CompletableFuture.failedFuture(new IllegalStateException(
                    "renewal of '" + request.resource() + "' withheld: its holder is in a chaos pause"));
        }
        return delegate.renew(request, grant);
    }

    @Override
    public boolean release(LeaseRequest request, Grant grant) {
        pausedUntil.remove(request.holder());
        return delegate.release(request, grant);
    }

    @Override
    public AutoCloseable watch(LeaseRequest request, Grant grant, Consumer<LeaseLossReason> lost) {
        return delegate.watch(request, grant, lost);
    }

    @Override
    public String describe() {
        return delegate.describe() + " (chaos pauses on)";
    }

    @Override
    public void close() {
        delegate.close();
    }
}
