package io.fenceguard.reactor.webflux;

import io.fenceguard.admission.OutboundFence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.reactor.ReactiveLeaseContext;
import io.fenceguard.spring.web.reactive.SignedWebClientRequests;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.springframework.util.ClassUtils;
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
 *
 * <p>With an {@link OutboundFence#withRequestSignatures() OutboundFence signing requests}, each call is signed
 * as a whole (RFC 9421: method, target URI, the fencing header and {@code Content-Digest}, a nonce used once),
 * by fenceguard-spring's {@code SignedWebClientRequests}, which must be on the class path then: the body's
 * SHA-256 is taken chunk by chunk as the request's {@code BodyInserter} writes it, and the chunks are held, not
 * copied, until the last one, since the signature headers go out before the body. The digest and the HMAC are
 * computed once per call.
 */
public final class ReactiveFencingExchangeFilterFunction implements ExchangeFilterFunction {

    private static final String SIGNING = "io.fenceguard.spring.web.reactive.SignedWebClientRequests";

    private final OutboundFence fence;

    /**
     * @throws IllegalStateException when {@code fence} signs requests and fenceguard-spring, which signs the
     *     bodies, is not on the class path
     */
    public ReactiveFencingExchangeFilterFunction(OutboundFence fence) {
        this.fence = Objects.requireNonNull(fence, "fence");
        if (fence.signsRequests() && !ClassUtils.isPresent(SIGNING, getClass().getClassLoader())) {
            throw new IllegalStateException("WebClient request signatures need io.fenceguard:fenceguard-spring"
                    + " on the class path (" + SIGNING + " is missing); add it, or sign the fencing header only");
        }
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
