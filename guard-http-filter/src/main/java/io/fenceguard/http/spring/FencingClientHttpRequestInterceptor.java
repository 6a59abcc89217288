package io.fenceguard.http.spring;

import io.fenceguard.http.OutboundFence;
import java.io.IOException;
import java.util.Objects;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/** Adds the fencing header to {@code RestClient} and {@code RestTemplate} calls to configured destinations. */
public final class FencingClientHttpRequestInterceptor implements ClientHttpRequestInterceptor {

    private final OutboundFence fence;

    public FencingClientHttpRequestInterceptor(OutboundFence fence) {
        this.fence = Objects.requireNonNull(fence, "fence");
    }

    @Override
    public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
            throws IOException {
        // A header set explicitly by the caller wins; otherwise the token in context is sent.
        if (!request.getHeaders().containsHeader(fence.headerName())) {
            fence.headerFor(request.getURI()).ifPresent(value -> request.getHeaders().set(fence.headerName(), value));
        }
        return execution.execute(request, body);
    }
}
