package io.fenceguard.reactor.webflux;

import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A response held back until its request's transaction is decided: the body joined as the handler writes it (no
 * thread waits for it) and sent by {@link #release()}, so that a client never sees a success that did not commit.
 */
final class HeldResponse extends ServerHttpResponseDecorator {

    private volatile byte[] body;

    HeldResponse(ServerHttpResponse delegate) {
        super(delegate);
    }

    @Override
    public Mono<Void> writeWith(Publisher<? extends DataBuffer> written) {
        return RecordingResponse.joined(written).doOnNext(bytes -> body = bytes).then();
    }

    @Override
    public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> written) {
        return writeWith(Flux.from(written).concatMap(Flux::from));
    }

    @Override
    public Mono<Void> setComplete() {
        if (body == null) {
            body = new byte[0];
        }
        return Mono.empty();
    }

    /** Whether the handler's answer is to be committed: below 400. */
    boolean succeeded() {
        HttpStatusCode status = getStatusCode();
        return status == null || status.value() < 400;
    }

    /** Sends what was held. */
    Mono<Void> release() {
        byte[] held = body;
        return held == null || held.length == 0 ? getDelegate().setComplete()
                : getDelegate().writeWith(Mono.fromSupplier(() -> bufferFactory().wrap(held)));
    }
}
