package io.fenceguard.reactor.webflux;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.HandlerOrder;
import io.fenceguard.admission.IdempotencyKeys;
import io.fenceguard.admission.IdempotencyStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.InboundRequest;
import io.fenceguard.admission.NonBlockingAdmissionStore;
import io.fenceguard.admission.NonBlockingIdempotencyStore;
import io.fenceguard.admission.PendingAdmission;
import io.fenceguard.admission.Problem;
import io.fenceguard.core.RefusalListener;
import io.fenceguard.admission.RequestSignatures;
import io.fenceguard.admission.Verdict;
import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.reactor.ReactiveLeaseContext;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The WebFlux counterpart of the servlet {@code FencingFilter}: the same decision ({@link InboundFence}:
 * routes, header parsing, signature check, high-water admission), the same answers (RFC 9457
 * {@code application/problem+json}, types {@code urn:fenceguard:*}, statuses 400/403/409/428/503), and
 * an admitted request runs under the presented fence, here bound in the Reactor Context
 * ({@link ReactiveLeaseContext}) as a presented {@link Lease}: the handler's R2DBC writes and WebClient
 * calls carry the caller's token.
 *
 * <p>Unfenced requests pass without leaving the event loop. When the store answers without blocking
 * ({@link io.fenceguard.admission.HighWaterStore#nonBlocking()}: R2DBC, Redis through Lettuce, memory) and the
 * fence's checks read no store ({@link InboundFence#checksWithoutBlocking()}), a fenced request is admitted on the
 * event loop too, one store call per request; only what blocks goes to the scheduler (a nonce kept by a store of
 * its own, a mark healed, a failed request's claim set back). Otherwise the admission runs on
 * {@code Schedulers.boundedElastic()} (or the scheduler given), never on a server I/O thread; there, requests
 * presenting the same fence at the same time are answered by one store call
 * ({@link InboundFence#coalescingAdmissions()}). A request with an idempotency key is admitted on the event loop too
 * when the store also keeps the keys without blocking ({@link NonBlockingAdmissionStore#idempotentAdmissions()}: Redis
 * through Lettuce or Redisson, R2DBC, given to {@link #withIdempotency} as well): its key claimed with the admission, its
 * response recorded and a failed request's claim forgotten by the store's non-blocking calls; otherwise there.
 *
 * <p>When the fence verifies request signatures ({@link InboundFence#withRequestSignatures}), a fenced request
 * that carries one is checked with its body: read into one array as it arrives (at most
 * {@link #withMaxSignedBodyBytes}, else 413), digested once by the check, and handed to the handler from that
 * array.
 *
 * <p>A request whose handler failed (an error, or an answer of 400 or more: a bad request too) leaves no
 * mark: when its token claimed the resource's mark and no request with that token succeeded on this
 * instance, the mark is set back ({@link InboundFence#withdrawingFailedClaims}) before the answer is
 * committed, so an older, valid token is admitted afterwards. A handler still in flight keeps its mark.
 *
 * <p>As the servlet filter, it keeps idempotency keys ({@link #withIdempotency}: same headers, store and problems;
 * the first response's body joined as written and recorded before it goes out) or runs the admission in the
 * handler's transaction ({@link #inTransaction}: on R2DBC, {@code R2dbcAdmissionTransaction}; the response held
 * until the commit).
 */
public final class FencingWebFilter implements WebFilter, Ordered {

    private static final Logger log = LoggerFactory.getLogger(FencingWebFilter.class);

    /** Exchange attribute holding the {@link Admission} of an admitted request. */
    public static final String ADMISSION_ATTRIBUTE = FencingWebFilter.class.getName() + ".admission";

    /** Largest body read to check a request signature's Content-Digest, by default (as the servlet filter's). */
    public static final int DEFAULT_MAX_SIGNED_BODY_BYTES = 1 << 20;

    private final InboundFence fence;
    /** The fence that admits: {@link #fence}, setting the claims of failed requests back. */
    private final InboundFence admitting;
    private final RefusalListener listener;
    private final Scheduler scheduler;
    /** Whether the fence and its store answer without blocking: then admissions are decided on the event loop. */
    private final boolean nonBlocking;
    /** Refusals, and the handlers of admitted requests. */
    private final HandlerRuns runs;
    private final int order;
    private final HandlerOrder handlerOrder;
    private final int maxSignedBodyBytes;
    private final boolean coalescing;
    private final IdempotencyStore idempotency;
    /**
     * The idempotency store's non-blocking calls when keyed requests are admitted on the event loop (the store keeps
     * the keys and offers them: {@link NonBlockingAdmissionStore#idempotentAdmissions()}); {@code null} otherwise.
     */
    private final NonBlockingIdempotencyStore keyCalls;
    private final ReactiveAdmissionTransaction transaction;
    /** Built once: Spring's filter chain asks for it on every request (its checkpoint's description). */
    private final String description;

    private FencingWebFilter(InboundFence fence, RefusalListener listener, Scheduler scheduler, int order,
            HandlerOrder handlerOrder, int maxSignedBodyBytes, boolean coalescing, IdempotencyStore idempotency,
            ReactiveAdmissionTransaction transaction) {
        if (idempotency != null && transaction != null) {
            throw new IllegalStateException("idempotency keys are not kept in the handler's transaction yet: use "
                    + "withIdempotency or inTransaction, not both");
        }
        this.fence = fence;
        this.idempotency = idempotency;
        this.transaction = transaction;
        this.coalescing = coalescing;
        this.nonBlocking = transaction == null && fence.checksWithoutBlocking() && fence.store().nonBlocking().isPresent();
        this.keyCalls = !nonBlocking || idempotency == null || idempotency != fence.store().backend()
                || fence.store().idempotentAdmissions().isEmpty() ? null
                : fence.store().nonBlocking().flatMap(NonBlockingAdmissionStore::idempotentAdmissions).orElse(null);
        // Requests waiting off the event loop may wait for each other; in place, each asks the store itself. In a
        // transaction neither: its rollback takes the claim back, and would take back the others' admissions.
        this.admitting = transaction != null ? fence
                : nonBlocking || scheduler == Schedulers.immediate() || !coalescing ? fence.withdrawingFailedClaims()
                : fence.withdrawingFailedClaims().coalescingAdmissions();
        this.listener = listener;
        this.scheduler = scheduler;
        this.order = order;
        this.handlerOrder = handlerOrder;
        this.maxSignedBodyBytes = maxSignedBodyBytes;
        this.runs = new HandlerRuns(admitting, listener, scheduler, handlerOrder,
                idempotency == null ? null : new KeyClaims(idempotency, keyCalls, scheduler));
        this.description = "FencingWebFilter[" + fence + "]";
    }

    public static FencingWebFilter of(InboundFence fence) {
        return of(fence, RefusalListener.none());
    }

    /** With a listener told of every refusal. */
    public static FencingWebFilter of(InboundFence fence, RefusalListener listener) {
        return of(fence, listener, Schedulers.boundedElastic());
    }

    /** Admission checks on {@code scheduler}: {@code Schedulers.immediate()} only for a store that never blocks. */
    public static FencingWebFilter of(InboundFence fence, RefusalListener listener, Scheduler scheduler) {
        return new FencingWebFilter(Objects.requireNonNull(fence, "fence"), Objects.requireNonNull(listener, "listener"),
                Objects.requireNonNull(scheduler, "scheduler"), 0, null, DEFAULT_MAX_SIGNED_BODY_BYTES, true, null, null);
    }

    /**
     * This filter asking the store once per request, also when requests with the same fence arrive together
     * (by default they share calls: {@link InboundFence#coalescingAdmissions()}): for a store that answers
     * parallel calls for one resource as fast as a single one.
     */
    public FencingWebFilter withoutCoalescing() {
        return new FencingWebFilter(fence, listener, scheduler, order, handlerOrder, maxSignedBodyBytes, false, idempotency, transaction);
    }

    /** This filter reading at most {@code maxSignedBodyBytes} of a request-signed body (longer ones are refused, 413). */
    public FencingWebFilter withMaxSignedBodyBytes(int maxSignedBodyBytes) {
        if (maxSignedBodyBytes < 0) {
            throw new IllegalArgumentException("maxSignedBodyBytes must not be negative");
        }
        return new FencingWebFilter(fence, listener, scheduler, order, handlerOrder, maxSignedBodyBytes, coalescing, idempotency, transaction);
    }

    /** This filter with {@code order} among the application's {@code WebFilter}s (default 0: after security filters). */
    public FencingWebFilter withOrder(int order) {
        return new FencingWebFilter(fence, listener, scheduler, order, handlerOrder, maxSignedBodyBytes, coalescing, idempotency, transaction);
    }

    /**
     * This filter starting handlers of a resource in token order on this instance ({@link HandlerOrder}), as the
     * servlet filter's {@code inHandlerOrder}: a handler that failed holds no older token back once it is done.
     */
    public FencingWebFilter inHandlerOrder(HandlerOrder handlerOrder) {
        Objects.requireNonNull(handlerOrder, "handlerOrder");
        // a mark set back (no lock store minted it) no longer holds older tokens back here either
        fence.markHealing().ifPresent(healing -> healing.whenSetBack(handlerOrder::setBack));
        return new FencingWebFilter(fence, listener, scheduler, order, handlerOrder,
                maxSignedBodyBytes, coalescing, idempotency, transaction);
    }

    /**
     * This filter answering a fenced request that carries an {@value IdempotencyKeys#HEADER} header from the first
     * response to that key (for the same resource and request), with {@value IdempotencyKeys#REPLAYED_HEADER} set,
     * as the servlet filter's {@code withIdempotency}: a retried or replayed request is not applied twice. The key
     * is checked after admission (a stale token is still refused), its store called off the event loop unless it
     * answers without blocking (the fence's store, offering {@link NonBlockingAdmissionStore#idempotentAdmissions()}); only
     * successes (below 400) are recorded, their body joined as written and recorded before it goes out.
     */
    public FencingWebFilter withIdempotency(IdempotencyStore store) {
        return new FencingWebFilter(fence, listener, scheduler, order, handlerOrder, maxSignedBodyBytes, coalescing,
                Objects.requireNonNull(store, "store"), transaction);
    }

    /**
     * This filter running each fenced request's admission and handler in {@code transaction}, committed when the
     * handler answers below 400 and rolled back otherwise, as the servlet filter's {@code inTransaction}: an
     * admission whose handler failed leaves no mark and no nonce. The response is held back until the commit, so
     * a client never sees a success that did not commit (503 {@code not-committed} instead). Not with
     * {@link #withIdempotency}.
     */
    public FencingWebFilter inTransaction(ReactiveAdmissionTransaction transaction) {
        return new FencingWebFilter(fence, listener, scheduler, order, handlerOrder, maxSignedBodyBytes, coalescing,
                idempotency, Objects.requireNonNull(transaction, "transaction"));
    }

    @Override
    public int getOrder() {
        return order;
    }

    public InboundFence inboundFence() {
        return fence;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        String method = request.getMethod().name();
        String path = FencedRequest.decodedPath(request);
        Optional<Map.Entry<FencedRoute, Map<String, String>>> route = fence.route(method, path);
        if (route.isEmpty()) {
            return chain.filter(exchange);
        }
        FencedRequest fenced = new FencedRequest(exchange, chain, method, path, route.get(),
                idempotency == null ? null : request.getHeaders().getFirst(IdempotencyKeys.HEADER));
        boolean signed = fence.verifiesRequestSignatures()
                && (request.getHeaders().containsHeader(RequestSignatures.SIGNATURE_INPUT)
                        || request.getHeaders().containsHeader(RequestSignatures.SIGNATURE));
        if (signed || IdempotencyKeys.wellFormed(fenced.key())) {
            return checkWithBody(fenced);
        }
        List<String> values = request.getHeaders().getOrEmpty(fence.headerName());
        if (nonBlocking) {
            return admitInPlace(fenced, null,
                    () -> admitting.beforeStore(fenced.resource(), fenced.variables(), values, null));
        }
        return decide(fenced, () -> new Checked(admitting.check(fenced.resource(), fenced.variables(), values), null));
    }

    /**
     * Checks the request and asks the store without leaving the event loop (the store's non-blocking calls), then
     * proceeds; only what blocks goes to the scheduler: a nonce kept by a store of its own, the healing of a mark.
     * {@code fingerprint}: that of a request with a well-formed idempotency key, claimed with the admission
     * ({@code null}: none).
     */
    private Mono<Void> admitInPlace(FencedRequest fenced, String fingerprint, Supplier<PendingAdmission> before) {
        return Mono.defer(() -> {
            PendingAdmission pending = before.get();
            if (!admitting.admitsWithoutBlocking(pending)) {
                return decide(fenced, () -> new Checked(admitting.admit(pending), fingerprint));
            }
            return Mono.fromCompletionStage(admitting.admitNonBlocking(pending, scheduler::schedule))
                    .flatMap(verdict -> runs.proceed(verdict, fingerprint, fenced));
        });
    }

    /** Checks the request off the event loop (the stores block), then proceeds; in the transaction, if any. */
    private Mono<Void> decide(FencedRequest fenced, Callable<Checked> check) {
        if (transaction == null) {
            return Mono.fromCallable(check).subscribeOn(scheduler)
                    .flatMap(checked -> runs.proceed(checked.verdict(), checked.fingerprint(), fenced));
        }
        ServerHttpResponse response = fenced.exchange().getResponse();
        HeldResponse held = new HeldResponse(response);
        FencedRequest holding = fenced.with(fenced.exchange().mutate().response(held).build());
        AtomicReference<Verdict> decided = new AtomicReference<>();
        AtomicBoolean handled = new AtomicBoolean();
        return transaction.run(() -> check.call().verdict(), scheduler, verdict -> {
                    decided.set(verdict);
                    return runs.proceed(verdict, null, holding).then(Mono.fromCallable(() -> {
                        handled.set(true);
                        return held.succeeded();
                    }));
                })
                .then(Mono.defer(held::release))
                .onErrorResume(e -> {
                    Optional<Admission> admitted = decided.get() == null ? Optional.empty() : decided.get().admission();
                    if (!handled.get() || admitted.isEmpty() || response.isCommitted()) {
                        return Mono.error(e);   // the handler's own failure, rolled back: answered as it failed
                    }
                    log.warn("the admission of {} and its handler's transaction did not commit; answering 503",
                            admitted.get().presented(), e);
                    response.getHeaders().clear();
                    return runs.refuse(fenced, Problem.notCommitted(admitted.get().presented()));
                });
    }

    /**
     * A request checked with its body (request-signed, or with a well-formed idempotency key, whose claim needs
     * the request's fingerprint): the body read once, checked with it, and handed on from the same array.
     */
    private Mono<Void> checkWithBody(FencedRequest fenced) {
        ServerHttpRequest request = fenced.exchange().getRequest();
        if (request.getHeaders().getContentLength() > maxSignedBodyBytes) {
            return tooLarge(fenced);
        }
        boolean keyed = IdempotencyKeys.wellFormed(fenced.key());
        return RequestBody.read(request, maxSignedBodyBytes)
                .flatMap(body -> {
                    InboundRequest inbound = new InboundRequest(fenced.method(), fenced.path(), request.getURI(),
                            name -> request.getHeaders().getOrEmpty(name), body);
                    FencedRequest replayable = fenced.with(RequestBody.replayable(fenced.exchange(), body));
                    if (nonBlocking && !keyed) {
                        return admitInPlace(replayable, null,
                                () -> admitting.beforeStore(fenced.resource(), fenced.variables(), inbound.header(
                                        fence.headerName()), inbound));
                    }
                    if (keyCalls != null && keyed) {
                        // The key claimed with the admission, both on the event loop.
                        String fingerprint = IdempotencyKeys.fingerprint(fenced.method(), fenced.path(),
                                request.getURI().getRawQuery(), body);
                        return admitInPlace(replayable, fingerprint, () -> admitting.beforeStore(fenced.resource(),
                                fenced.variables(), inbound, idempotency, fenced.key(), fingerprint));
                    }
                    // Digest and store calls off the event loop; a key's claim may be decided with the admission.
                    return decide(replayable, () -> {
                        if (!keyed) {
                            return new Checked(admitting.check(fenced.resource(), fenced.variables(), inbound), null);
                        }
                        String fingerprint = IdempotencyKeys.fingerprint(fenced.method(), fenced.path(),
                                request.getURI().getRawQuery(), body);
                        return new Checked(admitting.check(fenced.resource(), fenced.variables(), inbound, idempotency,
                                fenced.key(), fingerprint), fingerprint);
                    });
                })
                .onErrorResume(RequestBody.TooLarge.class, e -> tooLarge(fenced));
    }

    /** A verdict, and the fingerprint of a request with a well-formed idempotency key ({@code null}: none). */
    private record Checked(Verdict verdict, String fingerprint) {
    }

    private Mono<Void> tooLarge(FencedRequest fenced) {
        return runs.refuse(fenced, Problem.bodyTooLarge(maxSignedBodyBytes));
    }

    /** Writes {@code problem} as the whole response. */
    static Mono<Void> send(ServerHttpResponse response, Problem problem, String instance) {
        byte[] body = problem.body(instance);
        response.setStatusCode(HttpStatusCode.valueOf(problem.status()));
        response.getHeaders().set(HttpHeaders.CONTENT_TYPE, Problem.CONTENT_TYPE);
        response.getHeaders().setContentLength(body.length);
        return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(body)));
    }

    @Override
    public String toString() {
        return description;
    }
}
