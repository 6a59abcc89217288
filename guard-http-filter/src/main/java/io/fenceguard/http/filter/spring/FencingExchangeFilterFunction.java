package io.fenceguard.http.filter.spring;

import io.fenceguard.admission.OutboundFence;
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
 * Adds the fencing header to {@code WebClient} calls to configured destinations. The token is read
 * on the thread that subscribes to the exchange (for {@code block()}, the caller's); carry the lease
 * into other threads with {@code LeaseContext.wrap}. With request signatures the body is signed as it is
 * written, by fenceguard-spring's {@code SignedWebClientRequests} (which must be on the class path then): its
 * SHA-256 is taken chunk by chunk and the chunks are held, not copied, until the last one, since the signature
 * headers go out before the body; the digest and the HMAC are computed once per call.
 */
public final class FencingExchangeFilterFunction implements ExchangeFilterFunction {

    private static final String SIGNING = "io.fenceguard.spring.web.reactive.SignedWebClientRequests";

    private final OutboundFence fence;

    /**
     * @throws IllegalStateException when {@code fence} signs requests and fenceguard-spring, which signs the
     *     bodies, is not on the class path
     */
    public FencingExchangeFilterFunction(OutboundFence fence) {
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
        // Checks the lease and the destination now, on the subscribing thread; signs once the body is known.
        Optional<Map<String, String>> headers = fence.headersToSign(request.url());
        if (headers.isEmpty()) {
            return next.exchange(request);
        }
        if (!fence.signsRequests()) {
            return next.exchange(ClientRequest.from(request).headers(h -> headers.get().forEach(h::set)).build());
        }
        return next.exchange(SignedWebClientRequests.signedAsWritten(request, fence, headers.get()));
    }

    @Override
    public String toString() {
        return "FencingExchangeFilterFunction[" + fence + "]";
    }
}
