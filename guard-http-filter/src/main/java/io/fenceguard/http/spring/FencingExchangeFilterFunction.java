package io.fenceguard.http.spring;

import io.fenceguard.http.OutboundFence;
import java.util.Objects;
import java.util.Optional;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.Mono;

/**
 * Adds the fencing header to {@code WebClient} calls to configured destinations. The token is read
 * on the thread that subscribes to the exchange (for {@code block()}, the caller's); carry the lease
 * into other threads with {@code LeaseContext.wrap}.
 */
public final class FencingExchangeFilterFunction implements ExchangeFilterFunction {

    private final OutboundFence fence;

    public FencingExchangeFilterFunction(OutboundFence fence) {
        this.fence = Objects.requireNonNull(fence, "fence");
    }

    @Override
    public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
        if (request.headers().containsHeader(fence.headerName())) {
            return next.exchange(request);
        }
        Optional<String> value = fence.headerFor(request.url());
        if (value.isEmpty()) {
            return next.exchange(request);
        }
        return next.exchange(ClientRequest.from(request).header(fence.headerName(), value.get()).build());
    }
}
