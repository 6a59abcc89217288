package io.fenceguard.docs.stores;

import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.LeaseMode;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.core.spi.LeaseRequest;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

// tag::lease-provider-spi[]
/** A store decorator that counts grants: the methods a LeaseProvider implements. */
final class CountingLeaseProvider implements LeaseProvider {
    private final LeaseProvider store;
    private final AtomicLong grants = new AtomicLong();

    CountingLeaseProvider(LeaseProvider store) {
        this.store = store;
    }

    @Override
    public Grant acquire(LeaseRequest request, Duration wait) {           // token strictly greater per resource
        Grant grant = store.acquire(request, wait);
        grants.incrementAndGet();
        return grant;
    }

    @Override
    public CompletionStage<Boolean> renew(LeaseRequest request, Grant grant) {  // false: no longer this holder's
        return store.renew(request, grant);
    }

    @Override
    public boolean release(LeaseRequest request, Grant grant) {           // compare-and-delete
        return store.release(request, grant);
    }

    @Override
    public AutoCloseable watch(LeaseRequest request, Grant grant, Consumer<LeaseLossReason> lost) {
        return store.watch(request, grant, lost);                          // optional: push-style loss
    }

    @Override
    public Set<LeaseMode> modes() {                                        // optional: EXCLUSIVE only by default
        return store.modes();
    }

    @Override
    public void close() {
        store.close();
    }

    long grants() {
        return grants.get();
    }
}
// end::lease-provider-spi[]
