package io.fenceguard.http;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.AdmissionTransaction;
import io.fenceguard.admission.HandlerOrder;
import io.fenceguard.admission.IdempotencyStore;
import io.fenceguard.admission.InboundContext;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.InboundRequest;
import io.fenceguard.admission.Problem;
import io.fenceguard.admission.RefusalListener;
import io.fenceguard.admission.RequestSignatures;
import io.fenceguard.admission.Verdict;
import io.fenceguard.core.Fence;
import io.fenceguard.http.internal.BufferedResponse;
import io.fenceguard.http.internal.CachedBodyRequest;
import io.fenceguard.http.internal.ProblemResponse;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A servlet filter that lets a fenced request through only with a current fencing token, and runs
 * the rest of the chain under the presented fence ({@link InboundContext}). Refusals are answered
 * here with problem details; the application never sees them. Works in any servlet container:
 * {@code servletContext.addFilter("fencing", FencingFilter.of(inboundFence)).addMappingForUrlPatterns(null, false, "/*")}.
 */
public final class FencingFilter implements Filter {

    private static final Logger log = LoggerFactory.getLogger(FencingFilter.class);

    /** Request attribute holding the {@link Admission} of an admitted request. */
    public static final String ADMISSION_ATTRIBUTE = FencingFilter.class.getName() + ".admission";

    /** Largest body read to check a request signature's Content-Digest, by default. */
    public static final int DEFAULT_MAX_SIGNED_BODY_BYTES = 1 << 20;

    /** The request header naming a request's idempotency key ({@link #withIdempotency}). */
    public static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    /** Set on a response answered from the first response to its idempotency key. */
    public static final String IDEMPOTENT_REPLAYED = "Idempotent-Replayed";
    private static final int MAX_IDEMPOTENCY_KEY = 200;

    private final InboundFence fence;
    private final RefusalListener listener;
    private final int maxSignedBodyBytes;
    private final HandlerOrder order;
    private final IdempotencyStore idempotency;
    private final AdmissionTransaction transaction;

    private FencingFilter(InboundFence fence, RefusalListener listener, int maxSignedBodyBytes, HandlerOrder order,
            IdempotencyStore idempotency, AdmissionTransaction transaction) {
        this.fence = fence;
        this.listener = listener;
        this.maxSignedBodyBytes = maxSignedBodyBytes;
        this.order = order;
        this.idempotency = idempotency;
        this.transaction = transaction;
    }

    /** This filter starting handlers of a resource in token order on this instance ({@link HandlerOrder}). */
    public FencingFilter inHandlerOrder(HandlerOrder order) {
        return new FencingFilter(fence, listener, maxSignedBodyBytes, Objects.requireNonNull(order, "order"),
                idempotency, transaction);
    }

    /**
     * This filter answering a fenced request that carries an {@value #IDEMPOTENCY_KEY} header from the
     * first response to that key (for the same resource and request), with {@value #IDEMPOTENT_REPLAYED}
     * set: a retried or replayed request is not applied twice. The key is checked after admission, so a
     * request with an older token than the resource's mark is still refused as stale. Only successes
     * (status below 400) are recorded; a refused or failed request runs again when retried.
     */
    public FencingFilter withIdempotency(IdempotencyStore store) {
        return new FencingFilter(fence, listener, maxSignedBodyBytes, order, Objects.requireNonNull(store, "store"),
                transaction);
    }

    /**
     * This filter running each fenced request's admission, idempotency record and handler in
     * {@code transaction}, committed when the handler answers below 400 and rolled back otherwise (an
     * admission whose handler failed leaves no mark). The response is held back until the commit, so a
     * client never sees a success that did not commit.
     */
    public FencingFilter inTransaction(AdmissionTransaction transaction) {
        return new FencingFilter(fence, listener, maxSignedBodyBytes, order, idempotency,
                Objects.requireNonNull(transaction, "transaction"));
    }

    public static FencingFilter of(InboundFence fence) {
        return of(fence, (method, path, problem) -> { });
    }

    /** With a listener told of every refusal. */
    public static FencingFilter of(InboundFence fence, RefusalListener listener) {
        return of(fence, listener, DEFAULT_MAX_SIGNED_BODY_BYTES);
    }

    /** With the largest body read for a request signature's digest (longer ones are refused, 413). */
    public static FencingFilter of(InboundFence fence, RefusalListener listener, int maxSignedBodyBytes) {
        if (maxSignedBodyBytes < 0) {
            throw new IllegalArgumentException("maxSignedBodyBytes must not be negative");
        }
        return new FencingFilter(Objects.requireNonNull(fence, "fence"), Objects.requireNonNull(listener, "listener"),
                maxSignedBodyBytes, null, null, null);
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
        if ((transaction == null && idempotency == null) || fence.route(http.getMethod(), path).isEmpty()) {
            admitAndRun(http, out, chain, path);
            return;
        }
        BufferedResponse buffered = new BufferedResponse(out);
        Fence[] admitted = new Fence[1];
        boolean[] handlerFailed = new boolean[1];
        try {
            if (transaction == null) {
                admitAndRun(http, buffered, chain, path, admitted, handlerFailed);
            } else {
                transaction.run(() -> admitAndRun(http, buffered, chain, path, admitted, handlerFailed));
            }
        } catch (IOException | ServletException | RuntimeException e) {
            if (handlerFailed[0] || admitted[0] == null) {
                throw e;
            }
            refuseUncommitted(http, out, path, admitted[0], e);
            return;
        } catch (Exception e) {
            if (admitted[0] == null) {
                throw new ServletException(e);
            }
            refuseUncommitted(http, out, path, admitted[0], e);
            return;
        }
        buffered.release();
    }

    private void refuseUncommitted(HttpServletRequest http, HttpServletResponse out, String path, Fence fence, Exception e)
            throws IOException {
        log.warn("the admission of {} and its handler's transaction did not commit; answering 503", fence, e);
        out.reset();
        Problem problem = Problem.notCommitted(fence);
        ProblemResponse.send(out, problem, http.getRequestURI());
        listener.refused(http.getMethod(), path, problem);
    }

    private void admitAndRun(HttpServletRequest http, HttpServletResponse out, FilterChain chain, String path)
            throws IOException, ServletException {
        admitAndRun(http, out, chain, path, new Fence[1], new boolean[1]);
    }

    /** Admits and runs the request; answers whether what it did is to be committed. */
    private boolean admitAndRun(HttpServletRequest http, HttpServletResponse out, FilterChain chain, String path,
            Fence[] admitted, boolean[] handlerFailed) throws IOException, ServletException {
        ServletRequest request = http;
        Verdict verdict;
        byte[] body = null;
        if (fence.verifiesRequestSignatures() && fence.route(http.getMethod(), path).isPresent()
                && http.getHeader(RequestSignatures.SIGNATURE_INPUT) != null) {
            CachedBodyRequest cached = CachedBodyRequest.read(http, maxSignedBodyBytes);
            if (cached == null) {
                refuse(http, out, path, Problem.bodyTooLarge(maxSignedBodyBytes));
                return false;
            }
            http = cached;
            request = cached;
            body = cached.body();
            HttpServletRequest headers = cached;
            verdict = fence.check(new InboundRequest(http.getMethod(), path, targetUri(http),
                    name -> Collections.list(headers.getHeaders(name)), cached.body()));
        } else {
            verdict = fence.check(http.getMethod(), path, Collections.list(http.getHeaders(fence.headerName())));
        }
        if (!verdict.fenced()) {
            chain.doFilter(request, out);
            return true;
        }
        if (verdict.problem().isPresent()) {
            refuse(http, out, path, verdict.problem().get());
            return false;
        }
        Admission admission = verdict.admission().orElseThrow();
        Fence presented = admission.presented();
        admitted[0] = presented;
        String key = idempotency == null ? null : http.getHeader(IDEMPOTENCY_KEY);
        if (key != null) {
            if (key.isEmpty() || key.length() > MAX_IDEMPOTENCY_KEY || !key.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
                refuse(http, out, path, Problem.badIdempotencyKey(presented, "an " + IDEMPOTENCY_KEY + " is 1 to "
                        + MAX_IDEMPOTENCY_KEY + " visible ASCII characters"));
                return false;
            }
            if (body == null) {
                CachedBodyRequest cached = CachedBodyRequest.read(http, maxSignedBodyBytes);
                if (cached == null) {
                    refuse(http, out, path, Problem.bodyTooLarge(maxSignedBodyBytes));
                    return false;
                }
                http = cached;
                request = cached;
                body = cached.body();
            }
            IdempotencyStore.Claim claim;
            try {
                claim = idempotency.claim(presented, key, fingerprint(http, path, body));
            } catch (RuntimeException e) {
                log.warn("idempotency check for '{}' failed; refusing the request", presented.resource(), e);
                refuse(http, out, path, Problem.unavailable(presented));
                return false;
            }
            switch (claim.kind()) {
                case COMPLETED -> {
                    IdempotencyStore.RecordedResponse first = claim.response();
                    out.setStatus(first.status());
                    if (first.contentType() != null) {
                        out.setContentType(first.contentType());
                    }
                    out.setHeader(IDEMPOTENT_REPLAYED, "true");
                    out.getOutputStream().write(first.body());
                    return true;
                }
                case IN_PROGRESS -> {
                    refuse(http, out, path, Problem.idempotencyInProgress(presented, key));
                    return false;
                }
                case OTHER_REQUEST -> {
                    refuse(http, out, path, Problem.idempotencyKeyReused(presented, key));
                    return false;
                }
                case FIRST -> {
                }
            }
        }
        if (order != null) {
            Verdict start = order.enter(admission);
            if (start.problem().isPresent()) {
                abandon(presented, key);
                refuse(http, out, path, start.problem().get());
                return false;
            }
        }
        http.setAttribute(ADMISSION_ATTRIBUTE, admission);
        boolean succeeded = false;
        try (InboundContext.Scope ignored = InboundContext.bind(presented, http.getRemoteAddr())) {
            handlerFailed[0] = true;
            chain.doFilter(request, out);
            handlerFailed[0] = false;
            succeeded = out.getStatus() < 400;
        } finally {
            if (order != null) {
                order.exit(admission);
            }
            if (key != null && !succeeded) {
                abandon(presented, key);
            }
        }
        if (key != null && succeeded) {
            idempotency.complete(presented.resource(), key, new IdempotencyStore.RecordedResponse(out.getStatus(),
                    out.getContentType(), out instanceof BufferedResponse buffered ? buffered.body() : new byte[0]));
        }
        return succeeded;
    }

    private void abandon(Fence presented, String key) {
        if (key == null) {
            return;
        }
        try {
            idempotency.abandon(presented.resource(), key);
        } catch (RuntimeException e) {
            log.warn("could not forget the claim of idempotency key '{}' for '{}'", key, presented.resource(), e);
        }
    }

    private void refuse(HttpServletRequest http, HttpServletResponse out, String path, Problem problem)
            throws IOException {
        ProblemResponse.send(out, problem, http.getRequestURI());
        listener.refused(http.getMethod(), path, problem);
    }

    /** What binds a key to its request: method, path and query, and the body's SHA-256. */
    private static String fingerprint(HttpServletRequest http, String path, byte[] body) {
        try {
            java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
            String query = http.getQueryString();
            sha.update((http.getMethod() + " " + path + (query == null ? "" : "?" + query) + "\n")
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8));
            sha.update(body);
            return java.util.Base64.getEncoder().encodeToString(sha.digest());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The URI the client addressed: the request URL as the container (and its forwarded-header handling) sees it. */
    private static URI targetUri(HttpServletRequest http) {
        String query = http.getQueryString();
        return URI.create(http.getRequestURL() + (query == null ? "" : "?" + query));
    }
}
