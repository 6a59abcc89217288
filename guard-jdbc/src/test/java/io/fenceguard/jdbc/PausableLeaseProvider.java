package io.fenceguard.jdbc;

import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.core.spi.LeaseRequest;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * One process's view of a shared lock store that can be paused: while paused, its renewals go
 * unanswered, as for a holder stopped by a long GC pause, so its leases run out in the store and
 * locally while the holder still believes in them.
 */
final class PausableLeaseProvider implements LeaseProvider {

    private final LeaseProvider store;
    private volatile boolean paused;

    PausableLeaseProvider(LeaseProvider store) {
        this.store = store;
    }

    void pause() {
        paused = true;
    }

    @Override
    public Grant acquire(LeaseRequest request, Duration wait) {
        return store.acquire(request, wait);
    }

    @Override
    public CompletionStage<Boolean> renew(LeaseRequest request, Grant grant) {
        return paused ? CompletableFuture.failedFuture(new IllegalStateException("paused")) : store.renew(request, grant);
    }

    @Override
    public boolean release(LeaseRequest request, Grant grant) {
        return store.release(request, grant);
    }

    @Override
    public AutoCloseable watch(LeaseRequest request, Grant grant, Consumer<LeaseLossReason> lost) {
        return store.watch(request, grant, lost);
    }
}
