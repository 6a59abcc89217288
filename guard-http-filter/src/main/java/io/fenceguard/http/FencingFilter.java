package io.fenceguard.http;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A servlet filter that lets a guarded request through only with a current fencing token, and runs
 * the rest of the chain under that token ({@link InboundContext}). Refusals are answered here with
 * problem details; the application never sees them. Works in any servlet container:
 * {@code servletContext.addFilter("fencing", FencingFilter.of(gate)).addMappingForUrlPatterns(null, false, "/*")}.
 */
public final class FencingFilter implements Filter {

    /** Request attribute holding the {@link Admission} of an admitted request. */
    public static final String ADMISSION_ATTRIBUTE = FencingFilter.class.getName() + ".admission";

    private final FenceGate gate;
    private final RefusalListener listener;

    private FencingFilter(FenceGate gate, RefusalListener listener) {
        this.gate = gate;
        this.listener = listener;
    }

    public static FencingFilter of(FenceGate gate) {
        return of(gate, (method, path, problem) -> { });
    }

    /** With a listener told of every refusal. */
    public static FencingFilter of(FenceGate gate, RefusalListener listener) {
        return new FencingFilter(Objects.requireNonNull(gate, "gate"), Objects.requireNonNull(listener, "listener"));
    }

    public FenceGate gate() {
        return gate;
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
        List<String> values = Collections.list(http.getHeaders(gate.headerName()));
        Verdict verdict = gate.check(http.getMethod(), path, values);
        if (!verdict.guarded()) {
            chain.doFilter(request, response);
            return;
        }
        if (verdict.problem().isPresent()) {
            refuse(out, verdict.problem().get(), http.getRequestURI());
            listener.refused(http.getMethod(), path, verdict.problem().get());
            return;
        }
        Admission admission = verdict.admission().orElseThrow();
        http.setAttribute(ADMISSION_ATTRIBUTE, admission);
        try (InboundContext.Scope ignored = InboundContext.bind(verdict.inboundToken().orElseThrow())) {
            chain.doFilter(request, response);
        }
    }

    private static void refuse(HttpServletResponse out, Problem problem, String instance) throws IOException {
        byte[] body = problem.toJson(instance).getBytes(StandardCharsets.UTF_8);
        out.resetBuffer();
        out.setStatus(problem.status());
        out.setContentType(Problem.MEDIA_TYPE);
        out.setCharacterEncoding(StandardCharsets.UTF_8.name());
        out.setContentLength(body.length);
        out.getOutputStream().write(body);
        out.flushBuffer();
    }
}
