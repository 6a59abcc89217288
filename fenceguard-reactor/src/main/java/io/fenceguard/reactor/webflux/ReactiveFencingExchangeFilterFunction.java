package io.fenceguard.reactor.webflux;

import io.fenceguard.admission.OutboundFence;
import io.fenceguard.admission.RequestSignatures;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.reactor.ReactiveLeaseContext;
import java.net.URI;
import java.security.MessageDigest;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.client.reactive.ClientHttpRequest;
import org.springframework.http.client.reactive.ClientHttpRequestDecorator;
import org.springframework.web.reactive.function.BodyInserter;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Adds the fencing header to {@code WebClient} calls to the configured destinations, with the fence of
 * the lease in the subscribing chain's Reactor Context ({@link ReactiveLeaseContext}: a
 * {@code ReactiveLeases.withLease} chain, or a request the {@link FencingWebFilter} admitted), whatever
 * thread subscribes. Without one, the subscribing thread's {@link LeaseContext} is used, as by the
 * thread-bound {@code FencingExchangeFilterFunction}. A lost lease fails the call before it is sent.
 *
 * <p>With an {@link OutboundFence#withRequestSignatures() OutboundFence signing requests}, each call is signed
 * as a whole (RFC 9421: method, target URI, the fencing header and {@code Content-Digest}, a nonce used once):
 * the body's SHA-256 is taken chunk by chunk as the request's {@code BodyInserter} writes it, and the chunks are
 * held, not copied, until the last one, since the signature headers go out before the body. The digest and the
 * HMAC are computed once per call.
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
            BodyInserter<?, ? super ClientHttpRequest> original = request.body();
            String method = request.method().name();
            URI url = request.url();
            return next.exchange(ClientRequest.from(request)
                    .body((message, inserterContext) -> original.insert(
                            new SigningRequest(message, fence, headers.get(), method, url), inserterContext))
                    .build());
        });
    }

    /** Digests the body as it is written and sets the signature headers before the first byte goes out. */
    private static final class SigningRequest extends ClientHttpRequestDecorator {

        private final OutboundFence fence;
        private final Map<String, String> unsigned;
        private final String method;
        private final URI url;

        SigningRequest(ClientHttpRequest delegate, OutboundFence fence, Map<String, String> unsigned, String method,
                URI url) {
            super(delegate);
            this.fence = fence;
            this.unsigned = unsigned;
            this.method = method;
            this.url = url;
        }

        @Override
        public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
            MessageDigest digest = RequestSignatures.newBodyDigest();
            return Flux.<DataBuffer>from(body)
                    .doOnNext(buffer -> {
                        try (DataBuffer.ByteBufferIterator chunks = buffer.readableByteBuffers()) {
                            chunks.forEachRemaining(digest::update);
                        }
                    })
                    .collectList()
                    .doOnDiscard(DataBuffer.class, DataBufferUtils::release)
                    .flatMap(buffers -> {
                        sign(RequestSignatures.contentDigestOf(digest));
                        return super.writeWith(Flux.fromIterable(buffers));
                    });
        }

        @Override
        public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
            // The signature covers the whole body, which is known only at its end: written as one.
            return writeWith(Flux.from(body).concatMap(Flux::from));
        }

        @Override
        public Mono<Void> setComplete() {
            if (!isCommitted()) {
                sign(RequestSignatures.contentDigestOf(RequestSignatures.newBodyDigest()));
            }
            return super.setComplete();
        }

        private void sign(String contentDigest) {
            fence.signedDigest(unsigned, method, url, contentDigest).forEach(getHeaders()::set);
        }
    }

    @Override
    public String toString() {
        return "ReactiveFencingExchangeFilterFunction[" + fence + "]";
    }
}
