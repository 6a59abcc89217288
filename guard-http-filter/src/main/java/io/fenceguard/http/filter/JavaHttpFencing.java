package io.fenceguard.http.filter;

import io.fenceguard.admission.OutboundFence;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Adds the fencing header to {@code java.net.http} requests:
 * {@code client.send(fencing.apply(request), handler)}. With request signatures the body is read from
 * the request's publisher to compute its digest, so the publisher must be repeatable (those of
 * {@code BodyPublishers.ofString}, {@code ofByteArray} and {@code ofFile} are).
 */
public final class JavaHttpFencing {

    private final OutboundFence fence;

    private JavaHttpFencing(OutboundFence fence) {
        this.fence = fence;
    }

    public static JavaHttpFencing of(OutboundFence fence) {
        return new JavaHttpFencing(Objects.requireNonNull(fence, "fence"));
    }

    /** {@code request} with the header when its destination is configured and a token is in context; else unchanged. */
    public HttpRequest apply(HttpRequest request) {
        if (request.headers().firstValue(fence.headerName()).isPresent()) {
            return request;
        }
        byte[] body = fence.signsRequests() ? body(request) : new byte[0];
        Optional<Map<String, String>> headers = fence.headersFor(request.method(), request.uri(), body);
        if (headers.isEmpty()) {
            return request;
        }
        HttpRequest.Builder builder = HttpRequest.newBuilder(request,
                (name, v) -> !headers.get().keySet().stream().anyMatch(name::equalsIgnoreCase));
        headers.get().forEach(builder::header);
        return builder.build();
    }

    private static byte[] body(HttpRequest request) {
        if (request.bodyPublisher().isEmpty() || request.bodyPublisher().get().contentLength() == 0) {
            return new byte[0];
        }
        CompletableFuture<byte[]> read = new CompletableFuture<>();
        request.bodyPublisher().get().subscribe(new Flow.Subscriber<>() {
            private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

            @Override
            public void onSubscribe(Flow.Subscription subscription) {
                subscription.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(ByteBuffer item) {
                byte[] chunk = new byte[item.remaining()];
                item.get(chunk);
                bytes.writeBytes(chunk);
            }

            @Override
            public void onError(Throwable throwable) {
                read.completeExceptionally(throwable);
            }

            @Override
            public void onComplete() {
                read.complete(bytes.toByteArray());
            }
        });
        try {
            return read.get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the body to sign", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not read the request body to sign it", e);
        }
    }
}
