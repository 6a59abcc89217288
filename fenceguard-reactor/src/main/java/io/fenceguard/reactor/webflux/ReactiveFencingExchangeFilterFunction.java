package io.fenceguard.reactor.webflux;

import io.fenceguard.admission.OutboundFence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.reactor.ReactiveLeaseContext;
import java.util.Objects;
import java.util.Optional;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.Mono;

/**
 * Adds the fencing header to {@code WebClient} calls to the configured destinations, with the fence of
 * the lease in the subscribing chain's Reactor Context ({@link ReactiveLeaseContext}: a
 * {@code ReactiveLeases.withLease} chain, or a request the {@link FencingWebFilter} admitted), whatever
 * thread subscribes. Without one, the subscribing thread's {@link LeaseContext} is used, as by the
 * thread-bound {@code FencingExchangeFilterFunction}. A lost lease fails the call before it is sent.
 */
public final class ReactiveFencingExchangeFilterFunction implements ExchangeFilterFunction {

    private final OutboundFence fence;

    public ReactiveFencingExchangeFilterFunction(OutboundFence fence) {
        this.fence = Objects.requireNonNull(fence, "fence");
    }

    @Override
    public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
        if (request.headers().containsHeader(fence.headerName())) {
            return next.exchange(request);
        }
        return Mono.deferContextual(context -> {
            Optional<Lease> lease = ReactiveLeaseContext.current(context);
            Optional<String> value;
            if (lease.isPresent()) {
                // OutboundFence reads the thread's context: give it the chain's lease for this one call.
                try (LeaseContext.Scope ignored = LeaseContext.bind(lease.get())) {
                    value = fence.headerFor(request.url());
                }
            } else {
                value = fence.headerFor(request.url());
            }
            if (value.isEmpty()) {
                return next.exchange(request);
            }
            return next.exchange(ClientRequest.from(request).header(fence.headerName(), value.get()).build());
        });
    }

    @Override
    public String toString() {
        return "ReactiveFencingExchangeFilterFunction[" + fence + "]";
    }
}
