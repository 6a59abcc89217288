package io.fenceguard.reactor.webflux;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.HandlerOrder;
import io.fenceguard.admission.IdempotencyKeys;
import io.fenceguard.admission.IdempotencyStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.InboundRequest;
import io.fenceguard.admission.Problem;
import io.fenceguard.admission.RefusalListener;
import io.fenceguard.admission.RequestSignatures;
import io.fenceguard.admission.ResourceTemplate;
import io.fenceguard.admission.Verdict;
import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.reactor.ReactiveLeaseContext;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Flux;
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
 * <p>Unfenced requests pass without leaving the event loop. The high-water stores block (JDBC, Redis),
 * so the admission of a fenced request runs on {@code Schedulers.boundedElastic()} (or the scheduler given),
 * never on a server I/O thread; there, requests presenting the same fence at the same time are answered
 * by one store call ({@link InboundFence#coalescingAdmissions()}). An in-memory store may be checked in place
 * ({@link #of(InboundFence, RefusalListener, Scheduler)} with {@code Schedulers.immediate()}), one call per
 * request.
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
    private final int order;
    private final HandlerOrder handlerOrder;
    private final int maxSignedBodyBytes;
    private final boolean coalescing;
    private final IdempotencyStore idempotency;
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
        // Requests waiting off the event loop may wait for each other; in place, each asks the store itself. In a
        // transaction neither: its rollback takes the claim back, and would take back the others' admissions.
        this.admitting = transaction != null ? fence
                : scheduler == Schedulers.immediate() || !coalescing ? fence.withdrawingFailedClaims()
                : fence.withdrawingFailedClaims().coalescingAdmissions();
        this.listener = listener;
        this.scheduler = scheduler;
        this.order = order;
        this.handlerOrder = handlerOrder;
        this.maxSignedBodyBytes = maxSignedBodyBytes;
        this.description = "FencingWebFilter[" + fence + "]";
    }

    public static FencingWebFilter of(InboundFence fence) {
        return of(fence, (method, path, problem) -> { });
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
        return new FencingWebFilter(fence, listener, scheduler, order, Objects.requireNonNull(handlerOrder, "handlerOrder"),
                maxSignedBodyBytes, coalescing, idempotency, transaction);
    }

    /**
     * This filter answering a fenced request that carries an {@value IdempotencyKeys#HEADER} header from the first
     * response to that key (for the same resource and request), with {@value IdempotencyKeys#REPLAYED_HEADER} set,
     * as the servlet filter's {@code withIdempotency}: a retried or replayed request is not applied twice. The key
     * is checked after admission (a stale token is still refused), its store called off the event loop; only
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
        String path = decodedPath(request);
        Optional<Map.Entry<FencedRoute, Map<String, String>>> route = fence.route(method, path);
        if (route.isEmpty()) {
            return chain.filter(exchange);
        }
        Request fenced = new Request(exchange, chain, method, path, route.get(),
                idempotency == null ? null : request.getHeaders().getFirst(IdempotencyKeys.HEADER));
        boolean signed = fence.verifiesRequestSignatures()
                && (request.getHeaders().containsHeader(RequestSignatures.SIGNATURE_INPUT)
                        || request.getHeaders().containsHeader(RequestSignatures.SIGNATURE));
        if (signed || IdempotencyKeys.wellFormed(fenced.key())) {
            return checkWithBody(fenced);
        }
        List<String> values = request.getHeaders().getOrEmpty(fence.headerName());
        return decide(fenced, () -> new Checked(admitting.check(fenced.resource(), fenced.variables(), values), null));
    }

    /** Checks the request off the event loop (the stores block), then proceeds; in the transaction, if any. */
    private Mono<Void> decide(Request fenced, Callable<Checked> check) {
        if (transaction == null) {
            return Mono.fromCallable(check).subscribeOn(scheduler)
                    .flatMap(checked -> proceed(checked.verdict(), checked.fingerprint(), fenced));
        }
        ServerHttpResponse response = fenced.exchange().getResponse();
        HeldResponse held = new HeldResponse(response);
        Request holding = fenced.with(fenced.exchange().mutate().response(held).build());
        AtomicReference<Verdict> decided = new AtomicReference<>();
        AtomicBoolean handled = new AtomicBoolean();
        return transaction.run(() -> check.call().verdict(), scheduler, verdict -> {
                    decided.set(verdict);
                    return proceed(verdict, null, holding).then(Mono.fromCallable(() -> {
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
                    return refuse(fenced, Problem.notCommitted(admitted.get().presented()));
                });
    }

    /**
     * A fenced request on the filter's way, its route found once: its exchange and chain, method and mapped path,
     * and its {@value IdempotencyKeys#HEADER} ({@code null}: none, or this filter keeps no keys).
     */
    private record Request(ServerWebExchange exchange, WebFilterChain chain, String method, String path,
            Map.Entry<FencedRoute, Map<String, String>> route, String key) {

        ResourceTemplate resource() {
            return route.getKey().resource();
        }

        Map<String, String> variables() {
            return route.getValue();
        }

        Request with(ServerWebExchange replaced) {
            return new Request(replaced, chain, method, path, route, key);
        }

        String instance() {
            return exchange.getRequest().getPath().value();
        }
    }

    /**
     * A request checked with its body (request-signed, or with a well-formed idempotency key, whose claim needs
     * the request's fingerprint): the body read once, checked with it, and handed on from the same array.
     */
    private Mono<Void> checkWithBody(Request fenced) {
        ServerHttpRequest request = fenced.exchange().getRequest();
        if (request.getHeaders().getContentLength() > maxSignedBodyBytes) {
            return tooLarge(fenced);
        }
        DataBufferFactory factory = fenced.exchange().getResponse().bufferFactory();
        boolean keyed = IdempotencyKeys.wellFormed(fenced.key());
        return request.getBody()
                .reduceWith(() -> new RequestBody(request.getHeaders().getContentLength(), maxSignedBodyBytes),
                        RequestBody::append)
                .doOnDiscard(DataBuffer.class, DataBufferUtils::release)
                .map(RequestBody::bytes)
                .defaultIfEmpty(new byte[0])
                .flatMap(body -> {
                    InboundRequest inbound = new InboundRequest(fenced.method(), fenced.path(), request.getURI(),
                            name -> request.getHeaders().getOrEmpty(name), body);
                    Request replayable = fenced.with(fenced.exchange().mutate().request(new ServerHttpRequestDecorator(request) {
                        @Override
                        public Flux<DataBuffer> getBody() {
                            return body.length == 0 ? Flux.empty() : Flux.defer(() -> Flux.just(factory.wrap(body)));
                        }
                    }).build());
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

    private Mono<Void> tooLarge(Request fenced) {
        return refuse(fenced, Problem.bodyTooLarge(maxSignedBodyBytes));
    }

    private Mono<Void> refuse(Request fenced, Problem problem) {
        listener.refused(fenced.method(), fenced.path(), problem);
        return send(fenced.exchange().getResponse(), problem, fenced.instance());
    }

    /** Refuses an admitted request: its admission ended as failed first, so the client finds no mark of it. */
    private Mono<Void> refuseAdmitted(Request fenced, Admission admission, Problem problem) {
        return ended(admission, false, false, null).then(Mono.defer(() -> refuse(fenced, problem)));
    }

    private Mono<Void> proceed(Verdict verdict, String fingerprint, Request fenced) {
        if (verdict.problem().isPresent()) {
            return refuse(fenced, verdict.problem().get());
        }
        Admission admission = verdict.admission().orElseThrow();
        if (fenced.key() == null) {
            return run(admission, fenced);
        }
        Fence presented = admission.presented();
        if (fingerprint == null) {
            return refuseAdmitted(fenced, admission, Problem.badIdempotencyKey(presented, IdempotencyKeys.FORM));
        }
        // Claimed with the admission by a store that decides both; else claimed now, as the store blocks: off the loop.
        Mono<IdempotencyStore.Claim> claim = verdict.claim().map(Mono::just).orElseGet(() -> Mono
                .fromCallable(() -> idempotency.claim(presented, fenced.key(), fingerprint)).subscribeOn(scheduler));
        return claim.map(Optional::of)
                .onErrorResume(RuntimeException.class, e -> {
                    log.warn("idempotency check for '{}' failed; refusing the request", presented.resource(), e);
                    return Mono.just(Optional.empty());
                })
                .flatMap(answer -> {
                    if (answer.isEmpty()) {
                        return refuseAdmitted(fenced, admission, Problem.unavailable(presented));
                    }
                    return switch (answer.get().kind()) {
                        case FIRST -> run(admission, fenced);
                        case COMPLETED -> ended(admission, true, false, null).then(Mono.defer(() ->
                                RecordingResponse.replay(fenced.exchange().getResponse(), answer.get().response())));
                        case IN_PROGRESS -> refuseAdmitted(fenced, admission,
                                Problem.idempotencyInProgress(presented, fenced.key()));
                        case OTHER_REQUEST -> refuseAdmitted(fenced, admission,
                                Problem.idempotencyKeyReused(presented, fenced.key()));
                    };
                });
    }

    /**
     * Runs the handler of an admitted request (after its turn in the handler order) under the presented fence.
     * The first request with an idempotency key answers through a {@link RecordingResponse}.
     */
    private Mono<Void> run(Admission admission, Request fenced) {
        String key = fenced.key();
        if (handlerOrder != null) {
            Optional<Problem> newerStarted = handlerOrder.enter(admission).problem();
            if (newerStarted.isPresent()) {
                return abandon(admission.presented(), key).then(refuseAdmitted(fenced, admission, newerStarted.get()));
            }
        }
        ServerWebExchange exchange = fenced.exchange();
        exchange.getAttributes().put(ADMISSION_ATTRIBUTE, admission);
        Lease presented = Lease.presented(admission.presented(), "http:" + remote(exchange.getRequest()));
        ServerHttpResponse response = exchange.getResponse();
        AtomicBoolean unrecorded = new AtomicBoolean();
        RecordingResponse recording = key == null ? null
                : new RecordingResponse(response, (first, write) -> record(fenced, admission, first, write, unrecorded));
        ServerWebExchange handled = recording == null ? exchange : exchange.mutate().response(recording).build();
        AtomicBoolean done = new AtomicBoolean();
        // Before the answer is committed, so that a client told of a failure finds no mark of it; once only. A
        // key whose handler ran but whose response could not be recorded stays claimed: a retry must not run it.
        Function<Boolean, Mono<Void>> end = failed -> done.compareAndSet(false, true)
                ? ended(admission, !failed && succeeded(response), handlerOrder != null,
                        unrecorded.get() ? null : key) : Mono.empty();
        response.beforeCommit(() -> end.apply(false));
        // Bound for this request only: closed when it ends, as the servlet filter's scope is.
        return fenced.chain().filter(handled)
                // A handler that answered without writing: its empty response is recorded too.
                .then(Mono.defer(() -> recording == null || response.isCommitted() ? Mono.empty()
                        : recording.setComplete()))
                .contextWrite(ReactiveLeaseContext.with(presented))
                .then(Mono.defer(() -> end.apply(false)))
                .onErrorResume(e -> end.apply(true).then(Mono.error(e)))
                .doOnCancel(() -> end.apply(true).subscribe())
                .doFinally(signal -> presented.close());
    }

    /**
     * Records the first response to the request's key, then writes it; when the store cannot record it, answers
     * 503 instead: the client must not take for done what a retry would run again.
     */
    private Mono<Void> record(Request fenced, Admission admission, IdempotencyStore.RecordedResponse first,
            Mono<Void> write, AtomicBoolean unrecorded) {
        Fence presented = admission.presented();
        return Mono.fromRunnable(() -> idempotency.complete(presented.resource(), fenced.key(), first))
                .subscribeOn(scheduler)
                .then(write)
                .onErrorResume(e -> {
                    if (fenced.exchange().getResponse().isCommitted()) {
                        return Mono.error(e);
                    }
                    log.warn("the response to idempotency key '{}' for '{}' could not be recorded; answering 503",
                            fenced.key(), presented.resource(), e);
                    unrecorded.set(true);
                    return refuse(fenced, Problem.notCommitted(presented));
                });
    }

    private static boolean succeeded(ServerHttpResponse response) {
        HttpStatusCode status = response.getStatusCode();
        return status == null || status.value() < 400;
    }

    /**
     * The request of {@code admission} is done. A failure may set its claim back in the store, and forgets the
     * claim of its idempotency {@code key} ({@code null}: none): on the admission scheduler. A success only counts
     * down (no store call, no wait on one): in place.
     */
    private Mono<Void> ended(Admission admission, boolean succeeded, boolean entered, String key) {
        Mono<Void> end = Mono.fromRunnable(() -> {
            try {
                if (entered) {
                    handlerOrder.exit(admission, succeeded);
                }
            } finally {
                admitting.handlerEnded(admission, succeeded);
            }
        });
        return succeeded ? end : end.then(key == null ? Mono.empty() : abandon(admission.presented(), key))
                .subscribeOn(scheduler);
    }

    /** Forgets the claim of {@code key} ({@code null}: none) of a request that did not succeed: a retry runs again. */
    private Mono<Void> abandon(Fence presented, String key) {
        if (key == null) {
            return Mono.empty();
        }
        return Mono.<Void>fromRunnable(() -> idempotency.abandon(presented.resource(), key))
                .subscribeOn(scheduler)
                .onErrorResume(RuntimeException.class, e -> {
                    log.warn("could not forget the claim of idempotency key '{}' for '{}'", key, presented.resource(), e);
                    return Mono.empty();
                });
    }

    /**
     * What the application maps: the path within the application, each segment percent-decoded and
     * without {@code ;parameters}, as the servlet filter sees the servlet path.
     */
    static String decodedPath(ServerHttpRequest request) {
        StringBuilder path = new StringBuilder();
        for (PathContainer.Element element : request.getPath().pathWithinApplication().elements()) {
            if (element instanceof PathContainer.PathSegment segment) {
                path.append(segment.valueToMatch());
            } else {
                path.append(element.value());
            }
        }
        return path.length() == 0 ? "/" : path.toString();
    }

    private static String remote(ServerHttpRequest request) {
        InetSocketAddress address = request.getRemoteAddress();
        if (address == null) {
            return "unknown";
        }
        return address.getAddress() != null ? address.getAddress().getHostAddress() : address.getHostString();
    }

    /** Writes {@code problem} as the whole response. */
    static Mono<Void> send(ServerHttpResponse response, Problem problem, String instance) {
        byte[] body = problem.toJson(instance).getBytes(StandardCharsets.UTF_8);
        response.setStatusCode(HttpStatusCode.valueOf(problem.status()));
        HttpHeaders headers = response.getHeaders();
        headers.set(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE + ";charset=UTF-8");
        headers.setContentLength(body.length);
        DataBuffer buffer = response.bufferFactory().wrap(body);
        return response.writeWith(Mono.just(buffer));
    }

    @Override
    public String toString() {
        return description;
    }
}
