package io.fenceguard.reactor.webflux;

import io.fenceguard.admission.OutboundFence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.reactor.ReactiveLeaseContext;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.Mono;

/**
 * Adds the fencing header to {@code WebClient} calls to the configured destinations: the one {@code WebClient}
 * filter of fenceguard, for reactive and servlet applications alike (fenceguard-http-filter's
 * {@code FencingExchangeFilterFunction} is this filter). The fence is that of the lease in the subscribing chain's
 * Reactor Context ({@link ReactiveLeaseContext}: a {@code ReactiveLeases.withLease} chain, or a request the
 * {@link FencingWebFilter} admitted), whatever thread subscribes; without one, the subscribing thread's
 * {@link LeaseContext} (for {@code block()}, the caller's; carry it into other threads with {@code LeaseContext.wrap}).
 * A lost lease fails the call before it is sent.
 *
 * <p>With an {@link OutboundFence#withRequestSignatures() OutboundFence signing requests}, each call is signed
 * as a whole (RFC 9421: method, target URI, the fencing header and {@code Content-Digest}, a nonce used once): the
 * body's SHA-256 is taken chunk by chunk as the request's {@code BodyInserter} writes it, and the chunks are held,
 * not copied, until the last one, since the signature headers go out before the body. The digest and the HMAC are
 * computed once per call.
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
            Optional<Map<String, String>> headers;
            if (lease.isPresent()) {
                // OutboundFence reads the thread's context: give it the chain's lease for this one call.
                try (LeaseContext.Scope ignored = LeaseContext.bind(lease.get())) {
                    headers = fence.headersToSign(request.url());
                }
            } else {
                headers = fence.headersToSign(request.url());
            }
            if (headers.isEmpty()) {
                return next.exchange(request);
            }
            if (!fence.signsRequests()) {
                return next.exchange(ClientRequest.from(request).headers(h -> headers.get().forEach(h::set)).build());
            }
            return next.exchange(SignedWebClientRequests.signedAsWritten(request, fence, headers.get()));
        });
    }

    @Override
    public String toString() {
        return "ReactiveFencingExchangeFilterFunction[" + fence + "]";
    }
}
