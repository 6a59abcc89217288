package io.fenceguard.reactor.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.HandlerOrder;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.RequestSignatures;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.admission.TokenBound;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.redis.RedisHighWaterStore;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.test.support.FailedHandlerSteps;
import io.fenceguard.test.support.TestRedisson;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Mono;

/**
 * A request whose handler failed leaves no mark, through the WebFlux filter on a real Netty server: after a
 * bad request (400) or a handler's error with a newer token, an older, valid token is admitted; while a newer
 * token's handler is still running, the older one is refused as before. With and without handler order, on
 * the in-memory store and on Redis, and with request signatures on Redis, where the nonce and the mark are
 * decided in one script (tokens above 1000: the Redis store's floor).
 */
class FailedHandlerWebFilterTest {

    private static final SigningKeys KEYS = SigningKeys.of(Map.of("k1",
            "a-test-key-of-at-least-32-bytes!!".getBytes(StandardCharsets.US_ASCII)), "k1");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final CountDownLatch running = new CountDownLatch(2);
    private final CompletableFuture<Void> release = new CompletableFuture<>();

    @Test
    void aBadRequestWithANewerTokenLeavesNoMarkInMemory() throws Exception {
        aBadRequestLeavesNoMark(InMemoryHighWaterStore.create(), UnaryOperator.identity());
    }

    @Test
    void aBadRequestWithANewerTokenLeavesNoMarkInHandlerOrder() throws Exception {
        aBadRequestLeavesNoMark(InMemoryHighWaterStore.create(), filter -> filter.inHandlerOrder(HandlerOrder.create()));
    }

    @Test
    void aBadRequestWithANewerTokenLeavesNoMarkInRedis() throws Exception {
        aBadRequestLeavesNoMark(redis(), filter -> filter.inHandlerOrder(HandlerOrder.create()));
    }

    private void aBadRequestLeavesNoMark(HighWaterStore store, UnaryOperator<FencingWebFilter> configured)
            throws Exception {
        try (NettyServer server = start(store, configured)) {
            FailedHandlerSteps.aBadRequestLeavesNoMark((account, token, headers) -> post(server, account, token, headers),
                    FailedHandlerSteps.newAccount(), () -> { });
        }
    }

    @Test
    void aNewerTokenStillInFlightHoldsAnOlderOneBack() throws Exception {
        try (NettyServer server = start(redis(), filter -> filter.inHandlerOrder(HandlerOrder.create()))) {
            FailedHandlerSteps.aNewerTokenInFlightHoldsAnOlderOneBack(
                    (account, token, headers) -> post(server, account, token, headers), FailedHandlerSteps.newAccount(),
                    running, () -> release.complete(null));
        }
    }

    @Test
    void aFailedRequestSignedCallWithANewerTokenLeavesNoMarkInRedis() throws Exception {
        RedisHighWaterStore store = redis();
        try (NettyServer server = startSigned(store)) {
            String id = FailedHandlerSteps.newAccount();
            FailedHandlerSteps.aBadRequestLeavesNoMark((account, token, headers) -> signed(server, account, token, headers),
                    id, () -> assertThat(store.reset(ResourceName.of("account:" + id), FencingToken.of(1004),
                            FencingToken.of(1004))).as("the shared mark is 1004").isTrue());
        }
    }

    @Test
    void aNewerRequestSignedCallStillInFlightHoldsAnOlderOneBackInRedis() throws Exception {
        try (NettyServer server = startSigned(redis())) {
            FailedHandlerSteps.aNewerTokenInFlightHoldsAnOlderOneBack(
                    (account, token, headers) -> signed(server, account, token, headers), FailedHandlerSteps.newAccount(),
                    running, () -> release.complete(null));
        }
    }

    /** Request signatures required, nonces in the Redis store: nonce and mark decided in one script. */
    private NettyServer startSigned(RedisHighWaterStore store) {
        InboundFence fence = InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/entries/{id}", "account:{id}")),
                store, KEYS).withRequestSignatures(store, true);
        return NettyServer.start(WebHttpHandlerBuilder.webHandler(RouterFunctions.toWebHandler(
                RouterFunctions.route().POST("/entries/{id}", this::handle).build()))
                .filter(FencingWebFilter.of(fence)).build());
    }

    /** A POST of {@code {}} with a request signature over its target, fencing header and body. */
    private HttpResponse<String> signed(NettyServer server, String id, long token, String... headers) {
        URI target = URI.create(server.baseUrl() + "/entries/" + id);
        String fencing = FenceHeader.of(new Fence(ResourceName.of("account:" + id), FencingToken.of(token))).value();
        HttpRequest.Builder request = HttpRequest.newBuilder(target).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{}"));
        RequestSignatures.of(KEYS, FenceHeader.DEFAULT_NAME).sign("POST", target, fencing,
                "{}".getBytes(StandardCharsets.UTF_8)).forEach(request::header);
        if (headers.length > 0) {
            request.headers(headers);
        }
        return send(request);
    }

    private NettyServer start(HighWaterStore store, UnaryOperator<FencingWebFilter> configured) {
        InboundFence fence = InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/entries/{id}", "account:{id}")),
                store, SigningKeys.none());
        return NettyServer.start(WebHttpHandlerBuilder.webHandler(RouterFunctions.toWebHandler(
                RouterFunctions.route().POST("/entries/{id}", this::handle).build()))
                .filter(configured.apply(FencingWebFilter.of(fence))).build());
    }

    /** Answers 201, or the status in {@code X-Status}, or an error with {@code X-Fail}; waits with {@code X-Wait}. */
    private Mono<ServerResponse> handle(ServerRequest request) {
        Mono<Void> waited = Mono.empty();
        if (request.headers().firstHeader("X-Wait") != null) {
            running.countDown();
            waited = Mono.fromFuture(release).timeout(Duration.ofSeconds(20));
        }
        return waited.then(Mono.defer(() -> {
            if (request.headers().firstHeader("X-Fail") != null) {
                return Mono.error(new IllegalStateException("the handler fails"));
            }
            String status = request.headers().firstHeader("X-Status");
            return ServerResponse.status(status == null ? HttpStatus.CREATED : HttpStatus.valueOf(Integer.parseInt(status)))
                    .bodyValue("done");
        }));
    }

    private HttpResponse<String> post(NettyServer server, String id, long token, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.baseUrl() + "/entries/" + id))
                .timeout(Duration.ofSeconds(30))
                .header(FenceHeader.DEFAULT_NAME,
                        FenceHeader.of(new Fence(ResourceName.of("account:" + id), FencingToken.of(token))).value())
                .POST(HttpRequest.BodyPublishers.noBody());
        if (headers.length > 0) {
            request.headers(headers);
        }
        return send(request);
    }

    private HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static RedisHighWaterStore redis() {
        return RedisHighWaterStore.of(RedissonScriptClient.of(TestRedisson.shared()),
                "fg:failed:" + UUID.randomUUID().toString().substring(0, 8) + ":", TokenBound.atMost(1_000));
    }
}
