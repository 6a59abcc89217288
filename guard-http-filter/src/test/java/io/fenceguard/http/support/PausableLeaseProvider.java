package io.fenceguard.http.support;

import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.core.spi.LeaseRequest;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A provider whose renewals can be stopped, as if its holder's process paused: after {@link #pause()}
 * no renewal reaches the store, so the lock runs out there while the holder still has its token.
 */
public final class PausableLeaseProvider implements LeaseProvider {

    private final LeaseProvider store;
    private volatile boolean paused;

    public PausableLeaseProvider(LeaseProvider store) {
        this.store = store;
    }

    public void pause() {
        paused = true;
    }

    @Override
    public Grant acquire(LeaseRequest request, Duration wait) {
        return store.acquire(request, wait);
    }

    @Override
    public CompletionStage<Boolean> renew(LeaseRequest request, Grant grant) {
        return paused ? CompletableFuture.failedFuture(new IllegalStateException("paused"))
                : store.renew(request, grant);
    }

    @Override
    public boolean release(LeaseRequest request, Grant grant) {
        return store.release(request, grant);
    }
}
