package io.fenceguard.http.filter.spring;

import io.fenceguard.admission.OutboundFence;
import io.fenceguard.reactor.webflux.ReactiveFencingExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.Mono;

/**
 * Adds the fencing header (and, with a fence signing requests, the request signature) to {@code WebClient} calls to
 * configured destinations: fenceguard-reactor's {@link ReactiveFencingExchangeFilterFunction}, the one
 * {@code WebClient} filter, which must be on the class path (the starter brings it). The token is that of the lease
 * in the subscribing chain's Reactor Context, else of the subscribing thread's {@code LeaseContext} (for
 * {@code block()}, the caller's). Kept under this name for existing callers.
 */
public final class FencingExchangeFilterFunction implements ExchangeFilterFunction {

    private final OutboundFence fence;
    private final ExchangeFilterFunction filter;

    public FencingExchangeFilterFunction(OutboundFence fence) {
        this.fence = fence;
        this.filter = new ReactiveFencingExchangeFilterFunction(fence);
    }

    @Override
    public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
        return filter.filter(request, next);
    }

    @Override
    public String toString() {
        return "FencingExchangeFilterFunction[" + fence + "]";
    }
}
