package io.fenceguard.reactor.webflux;

import io.fenceguard.admission.OutboundFence;
import io.fenceguard.admission.RequestSignatures;
import java.net.URI;
import java.security.MessageDigest;
import java.util.Map;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.client.reactive.ClientHttpRequest;
import org.springframework.http.client.reactive.ClientHttpRequestDecorator;
import org.springframework.web.reactive.function.BodyInserter;
import org.springframework.web.reactive.function.client.ClientRequest;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code WebClient} requests signed as a whole (RFC 9421: method, target URI, the fencing header and
 * {@code Content-Digest}), for {@link ReactiveFencingExchangeFilterFunction}. The body's
 * SHA-256 is taken chunk by chunk as the request's {@code BodyInserter} writes it, and the chunks are held, not
 * copied, until the last one, since the signature headers go out before the body: the digest and the HMAC are
 * computed once per call.
 */
final class SignedWebClientRequests {

    private SignedWebClientRequests() {
    }

    /**
     * {@code request} with its body wrapped so that, once the body is known, the headers {@code unsigned} (from
     * {@link OutboundFence#headersToSign}, checked on the caller's thread) are signed with {@code fence} and set.
     */
    static ClientRequest signedAsWritten(ClientRequest request, OutboundFence fence,
            Map<String, String> unsigned) {
        BodyInserter<?, ? super ClientHttpRequest> original = request.body();
        String method = request.method().name();
        URI url = request.url();
        return ClientRequest.from(request)
                .body((message, context) -> original.insert(
                        new SigningRequest(message, fence, unsigned, method, url), context))
                .build();
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
}
