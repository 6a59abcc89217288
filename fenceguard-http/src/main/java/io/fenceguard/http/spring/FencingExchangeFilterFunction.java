package io.fenceguard.http.spring;

import io.fenceguard.admission.OutboundFence;
import io.fenceguard.admission.RequestSignatures;
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
 * Adds the fencing header to {@code WebClient} calls to configured destinations. The token is read
 * on the thread that subscribes to the exchange (for {@code block()}, the caller's); carry the lease
 * into other threads with {@code LeaseContext.wrap}. With request signatures the body's SHA-256 is taken
 * chunk by chunk as it is written, and the chunks are held, not copied, until the last one, since the
 * signature headers go out before the body: the digest and the HMAC are computed once per call.
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
        // Checks the lease and the destination now, on the subscribing thread; signs once the body is known.
        Optional<Map<String, String>> headers = fence.headersToSign(request.url());
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
                .body((message, context) -> original.insert(
                        new SigningRequest(message, fence, headers.get(), method, url), context))
                .build());
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
        return "FencingExchangeFilterFunction[" + fence + "]";
    }
}
