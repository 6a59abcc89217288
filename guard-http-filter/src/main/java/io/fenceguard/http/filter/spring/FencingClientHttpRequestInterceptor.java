package io.fenceguard.http.filter.spring;

import io.fenceguard.admission.OutboundFence;
import java.io.IOException;
import java.util.Objects;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Adds the fencing header to {@code RestClient} and {@code RestTemplate} calls to configured
 * destinations; with request signatures, also Content-Digest, Signature-Input and Signature over the
 * method, URI and body as sent.
 */
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
            fence.headersFor(request.getMethod().name(), request.getURI(), body)
                    .ifPresent(headers -> headers.forEach(request.getHeaders()::set));
        }
        return execution.execute(request, body);
    }
}
