package io.fenceguard.http;

import java.net.http.HttpRequest;
import java.util.Objects;

/**
 * Adds the fencing header to {@code java.net.http} requests:
 * {@code client.send(fencing.apply(request), handler)}.
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
        return fence.headerFor(request.uri())
                .map(value -> HttpRequest.newBuilder(request, (name, v) -> true).header(fence.headerName(), value).build())
                .orElse(request);
    }
}
