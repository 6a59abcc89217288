package io.fenceguard.reactor.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.IdempotencyKeys;
import io.fenceguard.admission.IdempotencyStore;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.admission.TokenBound;
import io.fenceguard.jdbc.admission.JdbcHighWaterStore;
import io.fenceguard.reactor.r2dbc.TestR2dbc;
import io.fenceguard.redis.RedisHighWaterStore;
import io.fenceguard.redis.RedisIdempotencyStore;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.test.support.TestRedisson;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Idempotency keys through the WebFlux filter on a real Netty server, as the servlet filter's IdempotencyTest: a
 * retried or replayed request is answered from the first response and not applied twice, in memory, on PostgreSQL
 * and on Redis (the claim in the admission's script, or next to it); a retry while the first runs is told to retry
 * later; a failed first try leaves the key free.
 */
class IdempotencyWebFilterTest {

    /** Added to every token sent: the Redis store refuses tokens up to its floor, its bound's ceiling. */
    private static final long FLOOR = 1_000;

    @Test
    void inMemoryRetryIsAnsweredFromTheFirstResponse() throws Exception {
        InMemoryHighWaterStore store = InMemoryHighWaterStore.create();
        retriesAreAnsweredOnce(store, store);
    }

    @Test
    void postgresqlRetryIsAnsweredFromTheFirstResponse() throws Exception {
        JdbcHighWaterStore store = JdbcHighWaterStore.of(TestR2dbc.jdbc());
        retriesAreAnsweredOnce(store, store);
    }

    @Test
    void redisRetryIsAnsweredFromTheFirstResponseWithTheClaimInTheAdmissionsScript() throws Exception {
        RedisHighWaterStore store = redis();
        retriesAreAnsweredOnce(store, store);
    }

    @Test
    void redisRetryIsAnsweredFromTheFirstResponseWithTheKeysNextToTheMarks() throws Exception {
        RedisHighWaterStore store = redis();
        retriesAreAnsweredOnce(store, RedisIdempotencyStore.nextTo(store));
    }

    @Test
    void aRetryWhileTheFirstRunsIsToldToRetryLaterInEveryStore() throws Exception {
        InMemoryHighWaterStore memory = InMemoryHighWaterStore.create();
        retryWhileTheFirstRuns(memory, memory);
        JdbcHighWaterStore postgres = JdbcHighWaterStore.of(TestR2dbc.jdbc());
        retryWhileTheFirstRuns(postgres, postgres);   // the claim in the admission's statement
        RedisHighWaterStore redis = redis();
        retryWhileTheFirstRuns(redis, redis);   // the claim in the admission's script
        retryWhileTheFirstRuns(redis, RedisIdempotencyStore.nextTo(redis));   // the claim after the admission
    }

    @Test
    void aFailedFirstTryLeavesTheKeyFreeAndIsNotRecorded() throws Exception {
        JdbcHighWaterStore store = JdbcHighWaterStore.of(TestR2dbc.jdbc());
        AtomicInteger applied = new AtomicInteger();
        try (NettyServer server = start(store, store, handler(applied))) {
            String id = account();
            HttpResponse<String> failed = post(server, id, 5, "k-1", "{\"amount\":7}", "X-Fail", "1");
            assertThat(failed.statusCode()).isEqualTo(500);
            HttpResponse<String> refused = post(server, id, 5, "k-1", "{\"amount\":7}", "X-Status", "422");
            assertThat(refused.statusCode()).as("an answer of 400 or more is not recorded").isEqualTo(422);
            HttpResponse<String> retried = post(server, id, 5, "k-1", "{\"amount\":7}");
            assertThat(retried.statusCode()).as("the key was forgotten: the retry runs").isEqualTo(201);
            assertThat(retried.headers().firstValue(IdempotencyKeys.REPLAYED_HEADER)).isEmpty();
            assertThat(applied.get()).isEqualTo(3);
            HttpResponse<String> again = post(server, id, 5, "k-1", "{\"amount\":7}");
            assertThat(again.body()).isEqualTo(retried.body());
            assertThat(applied.get()).isEqualTo(3);
        }
    }

    @Test
    void concurrentSendsOfOneKeyAreAppliedOnce() throws Exception {
        JdbcHighWaterStore store = JdbcHighWaterStore.of(TestR2dbc.jdbc());
        AtomicInteger applied = new AtomicInteger();
        try (NettyServer server = start(store, store, handler(applied))) {
            String id = account();
            List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                answers.add(CompletableFuture.supplyAsync(() -> post(server, id, 3, "k-busy", "{\"n\":3}")));
            }
            Set<String> bodies = new HashSet<>();
            for (CompletableFuture<HttpResponse<String>> answer : answers) {
                HttpResponse<String> response = answer.get(30, TimeUnit.SECONDS);
                assertThat(response.statusCode()).as(response.body()).isIn(201, 409);
                if (response.statusCode() == 201) {
                    bodies.add(response.body());
                }
            }
            assertThat(bodies).as("every answered retry got the first response").hasSize(1);
            assertThat(applied.get()).as("eight concurrent sends of one key").isOne();
        }
    }

    /** The same key twice, the same key with another body, a stale token, a malformed key, a second key. */
    private static void retriesAreAnsweredOnce(HighWaterStore store, IdempotencyStore keys) throws Exception {
        AtomicInteger applied = new AtomicInteger();
        try (NettyServer server = start(store, keys, handler(applied))) {
            String id = account();
            HttpResponse<String> first = KeyedPosts.answeredFromTheFirstResponse(
                (account, token, key, body) -> post(server, account, token, key, body), id, applied);
            HttpResponse<String> second = post(server, id, 6, "k-2", "{\"amount\":7}");
            assertThat(second.statusCode()).isEqualTo(201);
            assertThat(second.body()).isNotEqualTo(first.body());
            assertThat(applied.get()).isEqualTo(2);
        }
    }

    /** The first request holds its handler until the retry was answered: 409, and the handler ran once. */
    private static void retryWhileTheFirstRuns(HighWaterStore store, IdempotencyStore keys) throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CompletableFuture<Void> release = new CompletableFuture<>();
        AtomicInteger applied = new AtomicInteger();
        Function<ServerRequest, Mono<ServerResponse>> held = request -> {
            entered.countDown();
            return Mono.fromFuture(release).timeout(Duration.ofSeconds(10))
                    .then(Mono.defer(() -> ServerResponse.status(HttpStatus.CREATED).contentType(MediaType.APPLICATION_JSON)
                            .bodyValue("{\"entry\":" + applied.incrementAndGet() + "}")));
        };
        try (NettyServer server = start(store, keys, held)) {
            String id = account();
            CompletableFuture<HttpResponse<String>> first =
                    CompletableFuture.supplyAsync(() -> post(server, id, 5, "k-1", "{\"amount\":7}"));
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
            HttpResponse<String> retry = post(server, id, 5, "k-1", "{\"amount\":7}");
            release.complete(null);
            assertThat(retry.statusCode()).as(store + ": " + retry.body()).isEqualTo(409);
            assertThat(retry.body()).contains("urn:fenceguard:idempotency-in-progress");
            assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
            assertThat(applied.get()).isOne();
        }
    }

    /** Answers 201 with the entry's number, or the status in {@code X-Status}, or an error with {@code X-Fail}. */
    private static Function<ServerRequest, Mono<ServerResponse>> handler(AtomicInteger applied) {
        return request -> request.bodyToMono(String.class).defaultIfEmpty("").flatMap(body -> {
            int entry = applied.incrementAndGet();
            if (request.headers().firstHeader("X-Fail") != null) {
                return Mono.error(new IllegalStateException("the handler fails after its write"));
            }
            String status = request.headers().firstHeader("X-Status");
            return ServerResponse.status(status == null ? HttpStatus.CREATED : HttpStatus.valueOf(Integer.parseInt(status)))
                    .contentType(MediaType.APPLICATION_JSON).bodyValue("{\"entry\":" + entry + "}");
        });
    }

    private static NettyServer start(HighWaterStore store, IdempotencyStore keys,
            Function<ServerRequest, Mono<ServerResponse>> handler) {
        InboundFence fence = InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/entries/{id}", "account:{id}")),
                store, SigningKeys.none());
        FencingWebFilter filter = FencingWebFilter.of(fence, refusal -> { }, Schedulers.boundedElastic())
                .withIdempotency(keys);
        return NettyServer.start(WebHttpHandlerBuilder.webHandler(RouterFunctions.toWebHandler(
                RouterFunctions.route().POST("/entries/{id}", handler::apply).build())).filter(filter).build());
    }

    private static HttpResponse<String> post(NettyServer server, String id, long token, String key, String body,
            String... headers) {
        return KeyedPosts.post(server, id, FLOOR + token, key, body, Duration.ofSeconds(30), headers);
    }

    private static String account() {
        return KeyedPosts.account();
    }

    /** The Redis store's floor: every store is sent tokens above it. */
    private static RedisHighWaterStore redis() {
        return RedisHighWaterStore.of(RedissonScriptClient.of(TestRedisson.shared()),
                "fg:idem:" + UUID.randomUUID().toString().substring(0, 8) + ":", TokenBound.atMost(FLOOR));
    }
}
