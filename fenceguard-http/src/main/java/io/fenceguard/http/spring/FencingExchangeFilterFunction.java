package io.fenceguard.http.spring;

import io.fenceguard.admission.OutboundFence;
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
import reactor.core.publisher.Mono;

/**
 * Adds the fencing header to {@code WebClient} calls to configured destinations. The token is read
 * on the thread that subscribes to the exchange (for {@code block()}, the caller's); carry the lease
 * into other threads with {@code LeaseContext.wrap}. With request signatures the body is joined in
 * memory as it is written, signed, and then sent with the signature headers.
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
        if (!fence.signsRequests()) {
            Optional<Map<String, String>> headers = fence.headersFor(request.method().name(), request.url(), new byte[0]);
            if (headers.isEmpty()) {
                return next.exchange(request);
            }
            return next.exchange(ClientRequest.from(request).headers(h -> headers.get().forEach(h::set)).build());
        }
        // Checks the lease and the destination now, on the subscribing thread; signs once the body is known.
        Optional<Map<String, String>> probe = fence.headersFor(request.method().name(), request.url(), new byte[0]);
        if (probe.isEmpty()) {
            return next.exchange(request);
        }
        BodyInserter<?, ? super ClientHttpRequest> original = request.body();
        return next.exchange(ClientRequest.from(request).body((message, context) -> original.insert(
                new ClientHttpRequestDecorator(message) {
                    @Override
                    public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
                        return DataBufferUtils.join(body).defaultIfEmpty(bufferFactory().wrap(new byte[0])).flatMap(buffer -> {
                            byte[] bytes = new byte[buffer.readableByteCount()];
                            buffer.read(bytes);
                            DataBufferUtils.release(buffer);
                            sign(bytes);
                            return super.writeWith(Mono.just(bufferFactory().wrap(bytes)));
                        });
                    }

                    @Override
                    public Mono<Void> setComplete() {
                        sign(new byte[0]);
                        return super.setComplete();
                    }

                    private void sign(byte[] bytes) {
                        fence.signed(probe.get(), request.method().name(), request.url(), bytes)
                                .forEach(getHeaders()::set);
                    }
                }, context)).build());
    }
}
