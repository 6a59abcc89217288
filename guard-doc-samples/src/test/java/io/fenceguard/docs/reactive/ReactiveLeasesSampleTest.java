package io.fenceguard.docs.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.reactor.ReactiveLeaseContext;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/** The reactive lease sample on the in-memory store: the work runs with the lease in its Reactor Context. */
class ReactiveLeasesSampleTest {

    @Test
    void theChainSeesItsLeaseAndReleasesIt() {
        AtomicInteger legacyCalls = new AtomicInteger();
        try (InMemoryLeaseProvider provider = InMemoryLeaseProvider.create();
             LeaseManager manager = LeaseManager.of(provider)) {
            ReactiveSamples.Receipt receipt = ReactiveSamples.leases(manager,
                    (id, amount) -> ReactiveLeaseContext.requireValid()
                            .map(lease -> new ReactiveSamples.Receipt(lease.token().value())),
                    id -> Flux.empty(), id -> legacyCalls.incrementAndGet()).block();

            assertThat(receipt.token()).isPositive();                   // the token the chain was given
            assertThat(manager.heldLeases()).isEmpty();                 // released on complete
            assertThat(legacyCalls).hasValue(0);                        // the other forms are only assembled
        }
    }
}
