package io.fenceguard.reactor.webflux;

import io.fenceguard.admission.IdempotencyKeys;
import io.fenceguard.admission.IdempotencyStore.RecordedResponse;
import java.util.function.BiFunction;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The response of the first request with an idempotency key: its body joined as the handler writes it (no thread
 * waits for it), then, for a success (below 400), handed to {@code record} with the write of the same bytes
 * onward, so that the client never sees a success whose response was not recorded. A failure goes out as written.
 */
final class RecordingResponse extends ServerHttpResponseDecorator {

    private final BiFunction<RecordedResponse, Mono<Void>, Mono<Void>> record;

    /**
     * @param record given the first response and the write of its body, answers the write after the record
     */
    RecordingResponse(ServerHttpResponse delegate, BiFunction<RecordedResponse, Mono<Void>, Mono<Void>> record) {
        super(delegate);
        this.record = record;
    }

    @Override
    public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
        return joined(body).flatMap(this::recordAndWrite);
    }

    /** The bytes of {@code body}, joined as they are written; its buffers released. */
    static Mono<byte[]> joined(Publisher<? extends DataBuffer> body) {
        return DataBufferUtils.join(body)
                .map(joined -> {
                    try {
                        byte[] bytes = new byte[joined.readableByteCount()];
                        joined.read(bytes);
                        return bytes;
                    } finally {
                        DataBufferUtils.release(joined);
                    }
                })
                .defaultIfEmpty(new byte[0]);
    }

    @Override
    public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
        return writeWith(Flux.from(body).concatMap(Flux::from));
    }

    @Override
    public Mono<Void> setComplete() {
        return isCommitted() ? super.setComplete() : recordAndWrite(new byte[0]);
    }

    private Mono<Void> recordAndWrite(byte[] bytes) {
        Mono<Void> write = bytes.length == 0 ? super.setComplete()
                : super.writeWith(Mono.fromSupplier(() -> bufferFactory().wrap(bytes)));
        HttpStatusCode status = getStatusCode();
        if (status != null && status.value() >= 400) {
            return write;
        }
        MediaType contentType = getHeaders().getContentType();
        return record.apply(new RecordedResponse(status == null ? 200 : status.value(),
                contentType == null ? null : contentType.toString(), bytes), write);
    }

    /** Answers with the first response to the request's idempotency key, marked as a replay. */
    static Mono<Void> replay(ServerHttpResponse response, RecordedResponse first) {
        response.setStatusCode(HttpStatusCode.valueOf(first.status()));
        HttpHeaders headers = response.getHeaders();
        if (first.contentType() != null) {
            headers.set(HttpHeaders.CONTENT_TYPE, first.contentType());
        }
        headers.set(IdempotencyKeys.REPLAYED_HEADER, "true");
        headers.setContentLength(first.body().length);
        return first.body().length == 0 ? response.setComplete()
                : response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(first.body())));
    }
}
