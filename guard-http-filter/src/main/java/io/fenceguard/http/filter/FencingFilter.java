package io.fenceguard.http.filter;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.AdmissionTransaction;
import io.fenceguard.admission.HandlerOrder;
import io.fenceguard.admission.IdempotencyKeys;
import io.fenceguard.admission.IdempotencyStore;
import io.fenceguard.admission.InboundContext;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.InboundRequest;
import io.fenceguard.admission.Problem;
import io.fenceguard.core.RefusalListener;
import io.fenceguard.admission.RequestSignatures;
import io.fenceguard.admission.ResourceTemplate;
import io.fenceguard.admission.Verdict;
import io.fenceguard.core.Fence;
import io.fenceguard.http.filter.internal.BufferedResponse;
import io.fenceguard.http.filter.internal.CachedBodyRequest;
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
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A servlet filter that lets a fenced request through only with a current fencing token, and runs
 * the rest of the chain under the presented fence ({@link InboundContext}). Refusals are answered
 * here with problem details; the application never sees them. Works in any servlet container:
 * {@code servletContext.addFilter("fencing", FencingFilter.of(inboundFence)).addMappingForUrlPatterns(null, false, "/*")}.
 *
 * <p>A fenced request passes these steps: the check (its body read first when it is request-signed or carries an
 * idempotency key), the idempotency key's claim ({@link IdempotentRequests}), its turn in the handler order, the
 * handler under its fence; with a transaction or idempotency keys, all of them as one piece of work whose response
 * is held back until it is done ({@link RequestTransaction}).
 */
public final class FencingFilter implements Filter {

    /** Request attribute holding the {@link Admission} of an admitted request. */
    public static final String ADMISSION_ATTRIBUTE = FencingFilter.class.getName() + ".admission";

    /** Largest body read to check a request signature's Content-Digest, by default. */
    public static final int DEFAULT_MAX_SIGNED_BODY_BYTES = 1 << 20;

    /** The request header naming a request's idempotency key ({@link #withIdempotency}). */
    public static final String IDEMPOTENCY_KEY = IdempotencyKeys.HEADER;
    /** Set on a response answered from the first response to its idempotency key. */
    public static final String IDEMPOTENT_REPLAYED = IdempotencyKeys.REPLAYED_HEADER;

    private final InboundFence fence;
    /** The fence that admits: {@link #fence}, setting the claims of failed requests back unless a transaction does. */
    private final InboundFence admitting;
    private final RefusalListener listener;
    private final Refusals refusals;
    private final int maxSignedBodyBytes;
    private final HandlerOrder order;
    private final IdempotencyStore idempotency;
    /** The idempotency step on {@link #idempotency} ({@code null}: none). */
    private final IdempotentRequests idempotent;
    private final AdmissionTransaction transaction;
    /** The step that runs a fenced request's work and holds its response back ({@code null}: none needed). */
    private final RequestTransaction requestTransaction;
    private final boolean coalescing;

    private FencingFilter(InboundFence fence, RefusalListener listener, int maxSignedBodyBytes, HandlerOrder order,
            IdempotencyStore idempotency, AdmissionTransaction transaction, boolean coalescing) {
        this.fence = fence;
        this.coalescing = coalescing;
        InboundFence admitting = transaction == null ? fence.withdrawingFailedClaims() : fence;
        // Not when each admission belongs to its request's transaction: one request's rollback would take back the
        // others' admission. Which stores gain from it, the fence knows.
        this.admitting = coalescing && transaction == null ? admitting.coalescingAdmissions() : admitting;
        this.listener = listener;
        this.refusals = new Refusals(listener);
        this.maxSignedBodyBytes = maxSignedBodyBytes;
        this.order = order;
        this.idempotency = idempotency;
        this.idempotent = idempotency == null ? null : new IdempotentRequests(idempotency, refusals);
        this.transaction = transaction;
        this.requestTransaction = transaction == null && idempotency == null ? null
                : new RequestTransaction(transaction, refusals);
    }

    /**
     * This filter starting handlers of a resource in token order on this instance ({@link HandlerOrder}): a handler
     * that failed (an exception, or an answer of 400 or more) holds no older token back once it is done.
     */
    public FencingFilter inHandlerOrder(HandlerOrder order) {
        Objects.requireNonNull(order, "order");
        // a mark set back (no lock store minted it) no longer holds older tokens back here either
        fence.markHealing().ifPresent(healing -> healing.whenSetBack(order::setBack));
        return new FencingFilter(fence, listener, maxSignedBodyBytes, Objects.requireNonNull(order, "order"),
                idempotency, transaction, coalescing);
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
                transaction, coalescing);
    }

    /**
     * This filter running each fenced request's admission, idempotency record and handler in
     * {@code transaction}, committed when the handler answers below 400 and rolled back otherwise (an
     * admission whose handler failed leaves no mark). The response is held back until the commit, so a
     * client never sees a success that did not commit. Without a transaction, the claim of a request whose
     * handler failed is set back in the store instead ({@link InboundFence#withdrawingFailedClaims}).
     */
    public FencingFilter inTransaction(AdmissionTransaction transaction) {
        return new FencingFilter(fence, listener, maxSignedBodyBytes, order, idempotency,
                Objects.requireNonNull(transaction, "transaction"), coalescing);
    }

    /**
     * This filter asking the store once per request, also when requests presenting the same fence arrive
     * together. By default they share calls ({@link InboundFence#coalescingAdmissions()}): those arriving while the
     * store is asked about their fence are answered by one further call, made after all of them arrived, so N
     * requests of one lease holder cost two store calls, not N. Not done in a transaction ({@link #inTransaction})
     * nor on the in-memory store.
     */
    public FencingFilter withoutCoalescing() {
        return new FencingFilter(fence, listener, maxSignedBodyBytes, order, idempotency, transaction, false);
    }

    /**
     * A filter admitting with {@code fence}. A request whose handler failed (an exception, or an answer of 400 or
     * more: a bad request too) leaves no mark: when its token claimed the resource's mark and no request with
     * that token succeeded on this instance, the mark is set back ({@link InboundFence#withdrawingFailedClaims}),
     * so an older, valid token is admitted afterwards. A handler still in flight keeps its mark.
     */
    public static FencingFilter of(InboundFence fence) {
        return of(fence, RefusalListener.none());
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
                maxSignedBodyBytes, null, null, null, true);
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
        if (requestTransaction == null || fence.route(http.getMethod(), path).isEmpty()) {
            admitAndRun(http, out, chain, path).rethrowFailure();
            return;
        }
        requestTransaction.run(http, out, path, heldBack -> admitAndRun(http, heldBack, chain, path));
    }

    /**
     * Checks the request and, when it is admitted, runs it: its idempotency key, its turn in the handler order,
     * then the handler. A failure before the admission is thrown; one after it is in the outcome.
     */
    private RequestOutcome admitAndRun(HttpServletRequest http, HttpServletResponse out, FilterChain chain, String path)
            throws IOException, ServletException {
        Checked checked = check(http, path);
        if (checked.refusal() != null) {
            refuse(http, out, path, checked.refusal());
            return RequestOutcome.of(false, null);
        }
        Verdict verdict = checked.verdict();
        if (!verdict.fenced()) {
            chain.doFilter(checked.request(), out);
            return RequestOutcome.of(true, null);
        }
        if (verdict.problem().isPresent()) {
            refuse(checked.request(), out, path, verdict.problem().get());
            return RequestOutcome.of(false, null);
        }
        Admission admission = verdict.admission().orElseThrow();
        boolean succeeded = false;
        try {
            RequestOutcome outcome = runAdmitted(admission, checked, out, chain, path);
            succeeded = outcome.commit();
            return outcome;
        } catch (IOException | RuntimeException e) {
            return RequestOutcome.failed(admission.presented(), e, false);
        } finally {
            // Before the container sends the answer: a client told of the failure finds no mark of it.
            admitting.handlerEnded(admission, succeeded);
        }
    }

    /**
     * The verdict on the request. A request that carries a request signature on a fenced route is checked with
     * its body, which is read here (and kept for the handler); one too long to check is refused.
     */
    private Checked check(HttpServletRequest http, String path) throws IOException {
        boolean requestSigned = fence.verifiesRequestSignatures()
                && http.getHeader(RequestSignatures.SIGNATURE_INPUT) != null;
        String key = idempotency == null ? null : http.getHeader(IDEMPOTENCY_KEY);
        boolean keyed = IdempotencyKeys.wellFormed(key);
        Optional<Map.Entry<FencedRoute, Map<String, String>>> route = requestSigned || keyed
                ? fence.route(http.getMethod(), path) : Optional.empty();
        if (route.isPresent()) {
            // Read here, before the admission: a request-signed body is checked with it, and a key's claim may be
            // decided with the admission, which needs the request's fingerprint.
            CachedBodyRequest cached = CachedBodyRequest.read(http, maxSignedBodyBytes);
            if (cached == null) {
                return Checked.refused(http, Problem.bodyTooLarge(maxSignedBodyBytes));
            }
            InboundRequest request = new InboundRequest(cached.getMethod(), path, targetUri(cached),
                    name -> Collections.list(cached.getHeaders(name)), cached.body());
            // The route found above: matching the path once per request.
            ResourceTemplate resource = route.get().getKey().resource();
            Map<String, String> variables = route.get().getValue();
            String fingerprint = keyed
                    ? IdempotencyKeys.fingerprint(cached.getMethod(), path, cached.getQueryString(), cached.body()) : null;
            Verdict verdict = keyed ? admitting.check(resource, variables, request, idempotency, key, fingerprint)
                    : admitting.check(resource, variables, request);
            return new Checked(cached, fingerprint, verdict, null);
        }
        Verdict verdict = admitting.check(http.getMethod(), path, Collections.list(http.getHeaders(fence.headerName())));
        return new Checked(http, null, verdict, null);
    }

    /** An admitted request: its idempotency key, its turn in the handler order, then its handler. */
    private RequestOutcome runAdmitted(Admission admission, Checked checked, HttpServletResponse out, FilterChain chain,
            String path) throws IOException {
        Fence presented = admission.presented();
        HttpServletRequest http = checked.request();
        IdempotentRequests.KeyClaim claim = idempotent == null ? new IdempotentRequests.KeyClaim(null, null)
                : idempotent.claim(presented, http, checked.fingerprint(), checked.verdict().claim().orElse(null), out,
                        path);
        if (claim.answer() != null) {
            return claim.answer();
        }
        if (order != null) {
            Optional<Problem> newerStarted = order.enter(admission).problem();
            if (newerStarted.isPresent()) {
                abandon(presented, claim.key());
                refuse(http, out, path, newerStarted.get());
                return RequestOutcome.of(false, presented);
            }
        }
        RequestOutcome handled = runHandler(admission, http, out, chain, claim.key());
        if (claim.key() != null && handled.commit()) {
            idempotent.complete(presented, claim.key(),
                    out instanceof BufferedResponse buffered ? buffered.body() : new byte[0], out);
        }
        return handled;
    }

    /**
     * Runs the handler under the presented fence; it succeeded when it answered below 400. Then leaves the handler
     * order, and forgets the idempotency key's claim unless the handler succeeded.
     */
    private RequestOutcome runHandler(Admission admission, HttpServletRequest http, HttpServletResponse out,
            FilterChain chain, String key) {
        Fence presented = admission.presented();
        http.setAttribute(ADMISSION_ATTRIBUTE, admission);
        boolean succeeded = false;
        try (InboundContext.Scope ignored = InboundContext.bind(presented, http.getRemoteAddr())) {
            try {
                chain.doFilter(http, out);
            } catch (IOException | ServletException | RuntimeException e) {
                return RequestOutcome.failed(presented, e, true);
            }
            succeeded = out.getStatus() < 400;
            return RequestOutcome.of(succeeded, presented);
        } finally {
            if (order != null) {
                order.exit(admission, succeeded);
            }
            if (key != null && !succeeded) {
                abandon(presented, key);
            }
        }
    }

    private void abandon(Fence presented, String key) {
        if (idempotent != null) {
            idempotent.abandon(presented, key);
        }
    }

    private void refuse(HttpServletRequest http, HttpServletResponse out, String path, Problem problem)
            throws IOException {
        refusals.refuse(http, out, path, problem);
    }

    /**
     * The request as the later steps read it, the fingerprint of a request with a well-formed idempotency key (else
     * null), and its verdict, or a refusal.
     */
    private record Checked(HttpServletRequest request, String fingerprint, Verdict verdict, Problem refusal) {

        static Checked refused(HttpServletRequest request, Problem refusal) {
            return new Checked(request, null, null, refusal);
        }
    }

    /** The URI the client addressed: the request URL as the container (and its forwarded-header handling) sees it. */
    private static URI targetUri(HttpServletRequest http) {
        String query = http.getQueryString();
        StringBuffer url = http.getRequestURL();
        return URI.create(query == null ? url.toString() : url.append('?').append(query).toString());
    }
}
