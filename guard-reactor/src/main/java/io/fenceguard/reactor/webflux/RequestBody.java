package io.fenceguard.reactor.webflux;

import java.util.Arrays;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The body of a request the filter reads before its admission (request-signed, or with an idempotency key),
 * gathered into one array as it arrives: sized by Content-Length when sent, at most {@code max} bytes.
 */
final class RequestBody {

    /** Thrown past the limit; no stack trace: an answer, not a fault. */
    static final class TooLarge extends RuntimeException {
        TooLarge() {
            super("body too large", null, false, false);
        }
    }

    private final int max;
    private byte[] bytes;
    private int length;

    /** The body of {@code request}, at most {@code max} bytes (else an error {@link TooLarge}). */
    static Mono<byte[]> read(ServerHttpRequest request, int max) {
        return request.getBody()
                .reduceWith(() -> new RequestBody(request.getHeaders().getContentLength(), max), RequestBody::append)
                .doOnDiscard(DataBuffer.class, DataBufferUtils::release)
                .map(RequestBody::bytes)
                .defaultIfEmpty(new byte[0]);
    }

    /** {@code exchange} whose request body, already read, is handed to the handler from {@code body}. */
    static ServerWebExchange replayable(ServerWebExchange exchange, byte[] body) {
        DataBufferFactory factory = exchange.getResponse().bufferFactory();
        return exchange.mutate().request(new ServerHttpRequestDecorator(exchange.getRequest()) {
            @Override
            public Flux<DataBuffer> getBody() {
                return body.length == 0 ? Flux.empty() : Flux.defer(() -> Flux.just(factory.wrap(body)));
            }
        }).build();
    }

    RequestBody(long contentLength, int max) {
        this.max = max;
        this.bytes = new byte[(int) Math.min(max, contentLength >= 0 ? contentLength : 8192)];
    }

    RequestBody append(DataBuffer buffer) {
        try {
            int n = buffer.readableByteCount();
            if (n > max - length) {
                throw new TooLarge();
            }
            if (length + n > bytes.length) {
                bytes = Arrays.copyOf(bytes, (int) Math.min(max, Math.max(length + n, 2L * bytes.length)));
            }
            buffer.read(bytes, length, n);
            length += n;
            return this;
        } finally {
            DataBufferUtils.release(buffer);
        }
    }

    byte[] bytes() {
        return length == bytes.length ? bytes : Arrays.copyOf(bytes, length);
    }
}
