package io.fenceguard.http;

import io.fenceguard.http.internal.ProblemResponse;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A servlet filter that lets a fenced request through only with a current fencing token, and runs
 * the rest of the chain under the presented fence ({@link InboundContext}). Refusals are answered
 * here with problem details; the application never sees them. Works in any servlet container:
 * {@code servletContext.addFilter("fencing", FencingFilter.of(inboundFence)).addMappingForUrlPatterns(null, false, "/*")}.
 */
public final class FencingFilter implements Filter {

    /** Request attribute holding the {@link Admission} of an admitted request. */
    public static final String ADMISSION_ATTRIBUTE = FencingFilter.class.getName() + ".admission";

    private final InboundFence fence;
    private final RefusalListener listener;

    private FencingFilter(InboundFence fence, RefusalListener listener) {
        this.fence = fence;
        this.listener = listener;
    }

    public static FencingFilter of(InboundFence fence) {
        return of(fence, (method, path, problem) -> { });
    }

    /** With a listener told of every refusal. */
    public static FencingFilter of(InboundFence fence, RefusalListener listener) {
        return new FencingFilter(Objects.requireNonNull(fence, "fence"), Objects.requireNonNull(listener, "listener"));
    }

    public InboundFence inboundFence() {
        return fence;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (!(request instanceof HttpServletRequest http) || !(response instanceof HttpServletResponse out)) {
            chain.doFilter(request, response);
            return;
        }
        // The container's decoded, normalised path without ;parameters: what the application maps.
        String path = http.getServletPath() + (http.getPathInfo() == null ? "" : http.getPathInfo());
        List<String> values = Collections.list(http.getHeaders(fence.headerName()));
        Verdict verdict = fence.check(http.getMethod(), path, values);
        if (!verdict.fenced()) {
            chain.doFilter(request, response);
            return;
        }
        if (verdict.problem().isPresent()) {
            ProblemResponse.send(out, verdict.problem().get(), http.getRequestURI());
            listener.refused(http.getMethod(), path, verdict.problem().get());
            return;
        }
        Admission admission = verdict.admission().orElseThrow();
        http.setAttribute(ADMISSION_ATTRIBUTE, admission);
        try (InboundContext.Scope ignored = InboundContext.bind(admission.presented(), http.getRemoteAddr())) {
            chain.doFilter(request, response);
        }
    }
}
