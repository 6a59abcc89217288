package io.fenceguard.reactor.webflux;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.HandlerOrder;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.InboundRequest;
import io.fenceguard.admission.Problem;
import io.fenceguard.admission.RefusalListener;
import io.fenceguard.admission.RequestSignatures;
import io.fenceguard.admission.Verdict;
import io.fenceguard.core.Lease;
import io.fenceguard.reactor.ReactiveLeaseContext;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
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
    /** Built once: Spring's filter chain asks for it on every request (its checkpoint's description). */
    private final String description;

    private FencingWebFilter(InboundFence fence, RefusalListener listener, Scheduler scheduler, int order,
            HandlerOrder handlerOrder, int maxSignedBodyBytes, boolean coalescing) {
        this.fence = fence;
        this.coalescing = coalescing;
        // Requests waiting off the event loop may wait for each other; in place, each asks the store itself.
        this.admitting = scheduler == Schedulers.immediate() || !coalescing ? fence.withdrawingFailedClaims()
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
                Objects.requireNonNull(scheduler, "scheduler"), 0, null, DEFAULT_MAX_SIGNED_BODY_BYTES, true);
    }

    /**
     * This filter asking the store once per request, also when requests with the same fence arrive together
     * (by default they share calls: {@link InboundFence#coalescingAdmissions()}): for a store that answers
     * parallel calls for one resource as fast as a single one.
     */
    public FencingWebFilter withoutCoalescing() {
        return new FencingWebFilter(fence, listener, scheduler, order, handlerOrder, maxSignedBodyBytes, false);
    }

    /** This filter reading at most {@code maxSignedBodyBytes} of a request-signed body (longer ones are refused, 413). */
    public FencingWebFilter withMaxSignedBodyBytes(int maxSignedBodyBytes) {
        if (maxSignedBodyBytes < 0) {
            throw new IllegalArgumentException("maxSignedBodyBytes must not be negative");
        }
        return new FencingWebFilter(fence, listener, scheduler, order, handlerOrder, maxSignedBodyBytes, coalescing);
    }

    /** This filter with {@code order} among the application's {@code WebFilter}s (default 0: after security filters). */
    public FencingWebFilter withOrder(int order) {
        return new FencingWebFilter(fence, listener, scheduler, order, handlerOrder, maxSignedBodyBytes, coalescing);
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
                maxSignedBodyBytes, coalescing);
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
        if (fence.verifiesRequestSignatures() && (request.getHeaders().containsHeader(RequestSignatures.SIGNATURE_INPUT)
                || request.getHeaders().containsHeader(RequestSignatures.SIGNATURE))) {
            return checkSigned(exchange, chain, method, path, route.get());
        }
        List<String> values = request.getHeaders().getOrEmpty(fence.headerName());
        return Mono.fromCallable(() -> admitting.check(route.get().getKey().resource(), route.get().getValue(), values))
                .subscribeOn(scheduler)
                .flatMap(verdict -> proceed(verdict, exchange, chain, method, path));
    }

    /** A request-signed request: its body read once, checked with it, and handed on from the same array. */
    private Mono<Void> checkSigned(ServerWebExchange exchange, WebFilterChain chain, String method, String path,
            Map.Entry<FencedRoute, Map<String, String>> route) {
        ServerHttpRequest request = exchange.getRequest();
        if (request.getHeaders().getContentLength() > maxSignedBodyBytes) {
            return tooLarge(exchange, method, path);
        }
        DataBufferFactory factory = exchange.getResponse().bufferFactory();
        return request.getBody()
                .reduceWith(() -> new SignedBody(request.getHeaders().getContentLength(), maxSignedBodyBytes),
                        SignedBody::append)
                .doOnDiscard(DataBuffer.class, DataBufferUtils::release)
                .map(SignedBody::bytes)
                .flatMap(body -> {
                    InboundRequest inbound = new InboundRequest(method, path, request.getURI(),
                            name -> request.getHeaders().getOrEmpty(name), body);
                    ServerWebExchange replayable = exchange.mutate().request(new ServerHttpRequestDecorator(request) {
                        @Override
                        public Flux<DataBuffer> getBody() {
                            return body.length == 0 ? Flux.empty() : Flux.defer(() -> Flux.just(factory.wrap(body)));
                        }
                    }).build();
                    // The route found by filter: matching the path once per request.
                    return Mono.fromCallable(() -> admitting.check(route.getKey().resource(), route.getValue(), inbound))
                            .subscribeOn(scheduler)
                            .flatMap(verdict -> proceed(verdict, replayable, chain, method, path));
                })
                .onErrorResume(SignedBody.TooLarge.class, e -> tooLarge(exchange, method, path));
    }

    private Mono<Void> tooLarge(ServerWebExchange exchange, String method, String path) {
        Problem problem = Problem.bodyTooLarge(maxSignedBodyBytes);
        listener.refused(method, path, problem);
        return send(exchange.getResponse(), problem, exchange.getRequest().getPath().value());
    }

    /** The body of a request-signed request, gathered into one array: sized by Content-Length when sent. */
    private static final class SignedBody {

        /** Thrown past the limit; no stack trace: an answer, not a fault. */
        static final class TooLarge extends RuntimeException {
            TooLarge() {
                super("body too large", null, false, false);
            }
        }

        private final int max;
        private byte[] bytes;
        private int length;

        SignedBody(long contentLength, int max) {
            this.max = max;
            this.bytes = new byte[(int) Math.min(max, contentLength >= 0 ? contentLength : 8192)];
        }

        SignedBody append(DataBuffer buffer) {
            try {
                int n = buffer.readableByteCount();
                if (n > max - length) {
                    throw new TooLarge();
                }
                if (length + n > bytes.length) {
                    bytes = java.util.Arrays.copyOf(bytes, (int) Math.min(max, Math.max(length + n, 2L * bytes.length)));
                }
                buffer.read(bytes, length, n);
                length += n;
                return this;
            } finally {
                DataBufferUtils.release(buffer);
            }
        }

        byte[] bytes() {
            return length == bytes.length ? bytes : java.util.Arrays.copyOf(bytes, length);
        }
    }

    private Mono<Void> proceed(Verdict verdict, ServerWebExchange exchange, WebFilterChain chain, String method,
            String path) {
        if (verdict.problem().isPresent()) {
            Problem problem = verdict.problem().get();
            listener.refused(method, path, problem);
            return send(exchange.getResponse(), problem, exchange.getRequest().getPath().value());
        }
        Admission admission = verdict.admission().orElseThrow();
        if (handlerOrder != null) {
            Optional<Problem> newerStarted = handlerOrder.enter(admission).problem();
            if (newerStarted.isPresent()) {
                listener.refused(method, path, newerStarted.get());
                return ended(admission, false, false)
                        .then(send(exchange.getResponse(), newerStarted.get(), exchange.getRequest().getPath().value()));
            }
        }
        exchange.getAttributes().put(ADMISSION_ATTRIBUTE, admission);
        Lease presented = Lease.presented(admission.presented(), "http:" + remote(exchange.getRequest()));
        ServerHttpResponse response = exchange.getResponse();
        AtomicBoolean done = new AtomicBoolean();
        // Before the answer is committed, so that a client told of a failure finds no mark of it; once only.
        java.util.function.Function<Boolean, Mono<Void>> end = failed -> done.compareAndSet(false, true)
                ? ended(admission, !failed && succeeded(response), handlerOrder != null) : Mono.empty();
        response.beforeCommit(() -> end.apply(false));
        // Bound for this request only: closed when it ends, as the servlet filter's scope is.
        return chain.filter(exchange).contextWrite(ReactiveLeaseContext.with(presented))
                .then(Mono.defer(() -> end.apply(false)))
                .onErrorResume(e -> end.apply(true).then(Mono.error(e)))
                .doOnCancel(() -> end.apply(true).subscribe())
                .doFinally(signal -> presented.close());
    }

    private static boolean succeeded(ServerHttpResponse response) {
        HttpStatusCode status = response.getStatusCode();
        return status == null || status.value() < 400;
    }

    /**
     * The request of {@code admission} is done. A failure may set its claim back in the store: on the admission
     * scheduler. A success only counts down (no store call, no wait on one): in place.
     */
    private Mono<Void> ended(Admission admission, boolean succeeded, boolean entered) {
        Mono<Void> end = Mono.fromRunnable(() -> {
            try {
                if (entered) {
                    handlerOrder.exit(admission, succeeded);
                }
            } finally {
                admitting.handlerEnded(admission, succeeded);
            }
        });
        return succeeded ? end : end.subscribeOn(scheduler);
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
