package io.fenceguard.reactor.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.IdempotencyKeys;
import io.fenceguard.admission.IdempotencyStore;
import io.fenceguard.admission.IdempotentAdmissionStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.NonBlockingAdmissionStore;
import io.fenceguard.admission.NonBlockingIdempotencyStore;
import io.fenceguard.admission.NonceStore;
import io.fenceguard.admission.SignedAdmissionStore;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.admission.TokenBound;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.admission.JdbcHighWaterStore;
import io.fenceguard.reactor.r2dbc.TestR2dbc;
import io.fenceguard.reactor.webflux.r2dbc.R2dbcHighWaterStore;
import io.fenceguard.redis.RedisHighWaterStore;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.redis.springdata.SpringDataRedisScriptClient;
import io.fenceguard.test.support.RedisProcess;
import io.fenceguard.test.support.TestRedisson;
import io.fenceguard.test.support.TestServers;
import io.r2dbc.postgresql.PostgresqlConnectionConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Idempotency keys through the WebFlux filter on a store's non-blocking calls (Redis through Spring Data Redis on
 * Lettuce; PostgreSQL through R2DBC), served by a real Reactor Netty server, as {@link IdempotencyWebFilterTest} on the blocking ones: the key claimed
 * with the admission on the server's event loop, the response recorded and a failed request's claim forgotten
 * without a thread waiting, the filter's scheduler for blocking work never starting a thread; the same answers (a
 * retry from the first response, 409 while the first runs, 422 for a reused key, 400 for a malformed one, eight
 * concurrent sends applied once); records shared with a blocking store on the same keys (Redis through Redisson;
 * the JDBC store on the same tables); and a frozen Redis (SIGSTOP) or an unreachable PostgreSQL failing the keyed
 * request closed, nothing recorded.
 */
class NonBlockingIdempotencyTest {

    /** Added to every token sent: the Redis store refuses tokens up to its floor, its bound's ceiling. */
    private static final long FLOOR = 1_000;
    private static final String BLOCKING_THREADS = "fence-keys-blocking";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final List<AutoCloseable> opened = new ArrayList<>();

    /** A store keeping keys without blocking, and the threads its client answers on. */
    enum Backend {
        REDIS("lettuce-nioEventLoop-.*"),
        R2DBC("reactor-tcp-.*");

        /** The client's I/O threads, where a response may be recorded when the admission's answer resumed there. */
        final String clientThreads;

        Backend(String clientThreads) {
            this.clientThreads = clientThreads;
        }
    }

    /** A store of {@code backend} whose calls do not block, on fresh keys (Redis) or the shared tables (PostgreSQL). */
    private HighWaterStore nonBlocking(Backend backend, String prefix) {
        return switch (backend) {
            case REDIS -> redis(lettuce(TestServers.redis().host(), TestServers.redis().port()), prefix);
            case R2DBC -> R2dbcHighWaterStore.of(TestR2dbc.r2dbc());
        };
    }

    /** A blocking store of {@code backend} on the same keys or tables as {@link #nonBlocking}'s. */
    private static IdempotentAdmissionStore blocking(Backend backend, String prefix) {
        return switch (backend) {
            case REDIS -> RedisHighWaterStore.of(RedissonScriptClient.of(TestRedisson.shared()), prefix,
                    TokenBound.atMost(FLOOR));
            case R2DBC -> JdbcHighWaterStore.of(TestR2dbc.jdbc());
        };
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
    }

    /**
     * A decorator offering its store's non-blocking calls, decorated: records the name and thread of each call. Its
     * blocking calls fail the test: none is to be made.
     */
    private static final class RecordingStore implements IdempotentAdmissionStore, NonceStore {

        final List<String> calls = new CopyOnWriteArrayList<>();
        private final HighWaterStore store;

        RecordingStore(HighWaterStore store) {
            this.store = store;
        }

        private void record(String call) {
            calls.add(call + " on " + Thread.currentThread().getName()
                    + (Schedulers.isInNonBlockingThread() ? " (non-blocking)" : ""));
        }

        @Override
        public Admission admit(Fence presented) {
            throw new AssertionError("a blocking admission of " + presented);
        }

        @Override
        public Optional<Admission> admit(Fence presented, String nonce, Instant expires) {
            throw new AssertionError("a blocking request-signed admission of " + presented);
        }

        @Override
        public ClaimedAdmission admitClaiming(Fence presented, Nonce nonce, String key, String fingerprint) {
            throw new AssertionError("a blocking claim of " + key + " with the admission of " + presented);
        }

        @Override
        public Claim claim(Fence presented, String key, String fingerprint) {
            throw new AssertionError("a blocking claim of " + key);
        }

        @Override
        public void complete(ResourceName resource, String key, RecordedResponse response) {
            throw new AssertionError("a blocking record of " + key);
        }

        @Override
        public void abandon(ResourceName resource, String key) {
            throw new AssertionError("a blocking abandon of " + key);
        }

        @Override
        public boolean firstUse(String nonce, Instant expires) {
            throw new AssertionError("a blocking nonce check");
        }

        @Override
        public HighWaterStore backend() {
            return this;
        }

        @Override
        public Optional<NonBlockingAdmissionStore> nonBlocking() {
            NonBlockingAdmissionStore admissions = store.nonBlocking().orElseThrow();
            NonBlockingIdempotencyStore keys = admissions.idempotentAdmissions().orElseThrow();
            return Optional.of(new Calls(admissions, keys));
        }

        private final class Calls implements NonBlockingAdmissionStore, NonBlockingIdempotencyStore {

            private final NonBlockingAdmissionStore admissions;
            private final NonBlockingIdempotencyStore keys;

            Calls(NonBlockingAdmissionStore admissions, NonBlockingIdempotencyStore keys) {
                this.admissions = admissions;
                this.keys = keys;
            }

            @Override
            public CompletionStage<Admission> admit(Fence presented) {
                record("admit");
                return admissions.admit(presented);
            }

            @Override
            public CompletionStage<Optional<Admission>> admit(Fence presented, SignedAdmissionStore.Nonce nonce) {
                record("admit");
                return admissions.admit(presented, nonce);
            }

            @Override
            public CompletionStage<Boolean> firstUse(String nonce, Instant expires) {
                record("firstUse");
                return admissions.firstUse(nonce, expires);
            }

            @Override
            public Optional<NonBlockingIdempotencyStore> idempotentAdmissions() {
                return Optional.of(this);
            }

            @Override
            public CompletionStage<ClaimedAdmission> admitClaiming(Fence presented, SignedAdmissionStore.Nonce nonce,
                    String key, String fingerprint) {
                record("admitClaiming");
                return keys.admitClaiming(presented, nonce, key, fingerprint);
            }

            @Override
            public CompletionStage<Void> complete(ResourceName resource, String key, RecordedResponse response) {
                record("complete");
                return keys.complete(resource, key, response);
            }

            @Override
            public CompletionStage<Void> abandon(ResourceName resource, String key) {
                record("abandon");
                return keys.abandon(resource, key);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void keysAreClaimedRecordedAndForgottenOnTheEventLoopWithTheSameAnswers(Backend backend) throws Exception {
        RecordingStore recording = new RecordingStore(nonBlocking(backend, prefix()));
        AtomicInteger applied = new AtomicInteger();
        CountDownLatch entered = new CountDownLatch(1);
        CompletableFuture<Void> release = new CompletableFuture<>();
        Function<ServerRequest, Mono<ServerResponse>> handler = request -> request.bodyToMono(String.class)
                .defaultIfEmpty("").flatMap(body -> {
                    if (request.headers().firstHeader("X-Hold") != null) {
                        entered.countDown();
                        return Mono.fromFuture(release).timeout(Duration.ofSeconds(10)).then(answer(request, applied));
                    }
                    return answer(request, applied);
                });
        // Released by a request of its own: the held handler then answers on the server's event loop.
        NettyServer server = start(recording, handler, request -> {
            release.complete(null);
            return ServerResponse.ok().build();
        });
        String id = account();

        HttpResponse<String> first = KeyedPosts.answeredFromTheFirstResponse(
                (account, token, key, body) -> post(server, account, token, key, body), id, applied);

        // A failed first try leaves the key free (forgotten without blocking), and is not recorded.
        HttpResponse<String> refused = post(server, id, 6, "k-2", "{\"amount\":7}", "X-Status", "422");
        assertThat(refused.statusCode()).as("an answer of 400 or more is not recorded").isEqualTo(422);
        HttpResponse<String> retried = post(server, id, 6, "k-2", "{\"amount\":7}");
        assertThat(retried.statusCode()).as("the key was forgotten: the retry runs").isEqualTo(201);
        assertThat(retried.headers().firstValue(IdempotencyKeys.REPLAYED_HEADER)).isEmpty();
        assertThat(applied.get()).isEqualTo(3);

        // A retry while the first runs is told to retry later.
        CompletableFuture<HttpResponse<String>> held =
                CompletableFuture.supplyAsync(() -> post(server, id, 6, "k-3", "{\"amount\":9}", "X-Hold", "1"));
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        HttpResponse<String> busy = post(server, id, 6, "k-3", "{\"amount\":9}");
        assertThat(HTTP.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/release"))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding())
                .statusCode()).isEqualTo(200);
        assertThat(busy.statusCode()).as(busy.body()).isEqualTo(409);
        assertThat(busy.body()).contains("urn:fenceguard:idempotency-in-progress");
        assertThat(held.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
        assertThat(applied.get()).isEqualTo(4);

        // Eight concurrent sends of one key, applied once.
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            answers.add(CompletableFuture.supplyAsync(() -> post(server, id, 7, "k-busy", "{\"n\":3}")));
        }
        Set<String> bodies = new HashSet<>();
        for (CompletableFuture<HttpResponse<String>> answer : answers) {
            HttpResponse<String> response = answer.get(30, TimeUnit.SECONDS);
            assertThat(response.statusCode()).as(response.body()).isIn(201, 409);
            if (response.statusCode() == 201) {
                bodies.add(response.body());
            }
        }
        assertThat(bodies).as("every answered send got the first response").hasSize(1);
        assertThat(applied.get()).as("eight concurrent sends of one key").isEqualTo(5);

        // Claims are made on the server's event loop; a response is recorded (or a claim forgotten) where the
        // handler answered: the event loop, or the client's I/O thread when the admission's answer resumed it there.
        assertThat(recording.calls).as("the store's calls")
                .anySatisfy(call -> assertThat(call).startsWith("complete on"))
                .anySatisfy(call -> assertThat(call).startsWith("abandon on"))
                .allSatisfy(call -> assertThat(call).satisfiesAnyOf(
                        on -> assertThat(on).contains(" on reactor-http").endsWith("(non-blocking)"),
                        on -> assertThat(on).matches("(complete|abandon) on " + backend.clientThreads)));
        assertThat(recording.calls).filteredOn(call -> call.startsWith("admitClaiming"))
                .as("one claim with the admission per request with a well-formed key, on the event loop").hasSize(17)
                .allSatisfy(call -> assertThat(call).contains(" on reactor-http").endsWith("(non-blocking)"));
        assertThat(threadsNamed(BLOCKING_THREADS)).as("threads of the filter's scheduler for blocking work").isZero();
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void claimsAndResponsesAreSharedWithABlockingStoreOnTheSameKeys(Backend backend) throws Exception {
        String prefix = prefix();
        HighWaterStore nonBlocking = nonBlocking(backend, prefix);
        IdempotentAdmissionStore blocking = blocking(backend, prefix);
        AtomicInteger applied = new AtomicInteger();
        NettyServer server = start(new RecordingStore(nonBlocking),
                request -> request.bodyToMono(String.class).then(answer(request, applied)));
        String id = account();
        Fence fence = new Fence(ResourceName.of("account:" + id), FencingToken.of(FLOOR + 5));
        String body = "{\"amount\":7}";

        // Claimed by the blocking store: in progress here, then answered from the response it recorded.
        assertThat(blocking.admitClaiming(fence, null, "k-b", fingerprint(id, body)).claim().kind())
                .isEqualTo(IdempotencyStore.Claim.Kind.FIRST);
        HttpResponse<String> busy = post(server, id, 5, "k-b", body);
        assertThat(busy.statusCode()).as(busy.body()).isEqualTo(409);
        assertThat(busy.body()).contains("urn:fenceguard:idempotency-in-progress");
        blocking.complete(fence.resource(), "k-b", new IdempotencyStore.RecordedResponse(201, "application/json",
                "{\"entry\":\"blocking\"}".getBytes(StandardCharsets.UTF_8)));
        HttpResponse<String> replayed = post(server, id, 5, "k-b", body);
        assertThat(replayed.statusCode()).isEqualTo(201);
        assertThat(replayed.body()).isEqualTo("{\"entry\":\"blocking\"}");
        assertThat(replayed.headers().firstValue(IdempotencyKeys.REPLAYED_HEADER)).contains("true");
        assertThat(applied.get()).isZero();

        // Claimed and recorded here: the blocking store answers from it.
        HttpResponse<String> first = post(server, id, 5, "k-n", body);
        assertThat(first.statusCode()).isEqualTo(201);
        IdempotencyStore.Claim seen = blocking.claim(fence, "k-n", fingerprint(id, body));
        assertThat(seen.kind()).isEqualTo(IdempotencyStore.Claim.Kind.COMPLETED);
        assertThat(new String(seen.response().body(), StandardCharsets.UTF_8)).isEqualTo(first.body());
        assertThat(seen.response().status()).isEqualTo(201);
        assertThat(blocking.claim(fence, "k-n", fingerprint(id, "{\"amount\":8}")).kind())
                .isEqualTo(IdempotencyStore.Claim.Kind.OTHER_REQUEST);
        assertThat(applied.get()).isOne();
    }

    @Test
    void aFrozenRedisFailsTheKeyedRequestClosed() throws Exception {
        try (RedisProcess redis = RedisProcess.start()) {
            RecordingStore recording = new RecordingStore(redis(lettuce("127.0.0.1", redis.port()), "fg:frozen:"));
            AtomicInteger applied = new AtomicInteger();
            NettyServer server = start(recording, request -> request.bodyToMono(String.class).then(answer(request, applied)));
            String id = account();
            assertThat(post(server, id, 5, "k-1", "{\"amount\":7}").statusCode()).isEqualTo(201);
            redis.freeze();
            try {
                // The request's own timeout is the test's bound: the filter answers once the store's is up.
                HttpResponse<String> refused = post(server, id, 5, "k-2", "{\"amount\":7}");
                assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
                assertThat(refused.body()).contains("urn:fenceguard:store-unavailable").contains("account:" + id);
            } finally {
                redis.thaw();
            }
            assertThat(applied.get()).as("the refused request did not run").isOne();
            assertThat(post(server, id, 5, "k-3", "{\"amount\":7}").statusCode()).as("thawed, the store answers again")
                    .isEqualTo(201);
        }
    }

    @Test
    void anUnreachablePostgresFailsTheKeyedRequestClosedRecordingNothing() throws Exception {
        R2dbcHighWaterStore unreachable = R2dbcHighWaterStore.of(new PostgresqlConnectionFactory(
                PostgresqlConnectionConfiguration.builder().host("127.0.0.1").port(1).username("nobody")
                        .connectTimeout(Duration.ofSeconds(2)).build()));
        AtomicInteger applied = new AtomicInteger();
        NettyServer server = start(new RecordingStore(unreachable),
                request -> request.bodyToMono(String.class).then(answer(request, applied)));
        String id = account();

        HttpResponse<String> refused = post(server, id, 5, "k-1", "{\"amount\":7}");

        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
        assertThat(refused.body()).contains("urn:fenceguard:store-unavailable").contains("account:" + id);
        assertThat(applied.get()).as("the refused request did not run").isZero();
        JdbcHighWaterStore tables = JdbcHighWaterStore.of(TestR2dbc.jdbc());
        Fence fence = new Fence(ResourceName.of("account:" + id), FencingToken.of(FLOOR + 5));
        assertThat(tables.claim(fence, "k-1", fingerprint(id, "{\"amount\":7}")).kind())
                .as("no claim was recorded: the key is free").isEqualTo(IdempotencyStore.Claim.Kind.FIRST);
        assertThat(threadsNamed(BLOCKING_THREADS)).as("threads of the filter's scheduler for blocking work").isZero();
    }

    private static Mono<ServerResponse> answer(ServerRequest request, AtomicInteger applied) {
        return Mono.defer(() -> {
            int entry = applied.incrementAndGet();
            String status = request.headers().firstHeader("X-Status");
            return ServerResponse.status(status == null ? HttpStatus.CREATED : HttpStatus.valueOf(Integer.parseInt(status)))
                    .contentType(MediaType.APPLICATION_JSON).bodyValue("{\"entry\":" + entry + "}");
        });
    }

    private NettyServer start(RecordingStore store, Function<ServerRequest, Mono<ServerResponse>> handler) {
        return start(store, handler, request -> ServerResponse.notFound().build());
    }

    /** {@code handler} on the fenced route, {@code release} on {@code POST /release} (not fenced). */
    private NettyServer start(RecordingStore store, Function<ServerRequest, Mono<ServerResponse>> handler,
            Function<ServerRequest, Mono<ServerResponse>> release) {
        InboundFence fence = InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/entries/{id}", "account:{id}")),
                store, SigningKeys.none());
        Scheduler blocking = Schedulers.newBoundedElastic(4, 1000, BLOCKING_THREADS);
        opened.add(blocking::dispose);
        NettyServer server = NettyServer.start(WebHttpHandlerBuilder.webHandler(RouterFunctions.toWebHandler(
                        RouterFunctions.route().POST("/entries/{id}", handler::apply).POST("/release", release::apply)
                                .build()))
                .filter(FencingWebFilter.of(fence, refusal -> { }, blocking).withIdempotency(store)).build());
        opened.add(server);
        return server;
    }

    private SpringDataRedisScriptClient lettuce(String host, int port) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
        factory.afterPropertiesSet();
        factory.start();
        opened.add(factory::destroy);
        try (var connection = factory.getConnection()) {
            connection.ping();   // connected before the store's first call, which has its own bound
        }
        SpringDataRedisScriptClient client = SpringDataRedisScriptClient.of(factory);
        opened.add(client);
        return client;
    }

    private static RedisHighWaterStore redis(SpringDataRedisScriptClient client, String prefix) {
        return RedisHighWaterStore.of(client, prefix, TokenBound.atMost(FLOOR));
    }

    private static String prefix() {
        return "fg:idem-nb:" + UUID.randomUUID().toString().substring(0, 8) + ":";
    }

    private static String fingerprint(String id, String body) {
        return IdempotencyKeys.fingerprint("POST", "/entries/" + id, null, body.getBytes(StandardCharsets.UTF_8));
    }

    private static long threadsNamed(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith(prefix)).count();
    }

    private static HttpResponse<String> post(NettyServer server, String id, long token, String key, String body,
            String... headers) {
        return KeyedPosts.post(server, id, FLOOR + token, key, body, Duration.ofSeconds(20), headers);
    }

    private static String account() {
        return KeyedPosts.account();
    }
}
