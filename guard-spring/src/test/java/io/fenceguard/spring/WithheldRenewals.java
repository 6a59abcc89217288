package io.fenceguard.spring;

import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.core.spi.LeaseRequest;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** Leases in memory whose renewals, once {@link #withhold} is called, fail as if the store could not be reached. */
public final class WithheldRenewals implements LeaseProvider {

    private final LeaseProvider memory = InMemoryLeaseProvider.create();
    private volatile boolean withheld;

    public void withhold() {
        withheld = true;
    }

    @Override
    public Grant acquire(LeaseRequest request, Duration wait) {
        return memory.acquire(request, wait);
    }

    @Override
    public CompletionStage<Boolean> renew(LeaseRequest request, Grant grant) {
        return withheld ? CompletableFuture.failedFuture(new IllegalStateException("the store cannot be reached"))
                : memory.renew(request, grant);
    }

    @Override
    public boolean release(LeaseRequest request, Grant grant) {
        return memory.release(request, grant);
    }
}
