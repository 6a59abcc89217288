package io.fenceguard.reactor.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.Destinations;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.NonceStore;
import io.fenceguard.admission.OutboundFence;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.admission.JdbcHighWaterStore;
import io.fenceguard.reactor.ReactiveLeaseContext;
import io.fenceguard.reactor.r2dbc.TestR2dbc;
import io.fenceguard.redis.RedisHighWaterStore;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.test.support.TestRedisson;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The blocking stores (PostgreSQL, Redis) are asked off Reactor Netty's event loop, compact and request-signed:
 * a store wrapper records the thread of every call made for requests served by a real server.
 */
class StoreThreadsTest {

    private static final SigningKeys KEYS = SigningKeys.of(
            Map.of("k1", "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII)), "k1");
    private static final int REQUESTS = 24;

    private NettyServer server;

    @AfterEach
    void tearDown() {
        if (server != null) {
            server.close();
        }
    }

    /** A store (and its nonce store) recording the thread of each call. */
    private static final class RecordingStore implements HighWaterStore, NonceStore {

        final List<String> threads = new CopyOnWriteArrayList<>();
        final List<String> nonceThreads = new CopyOnWriteArrayList<>();
        private final HighWaterStore store;

        RecordingStore(HighWaterStore store) {
            this.store = store;
        }

        private static String thread() {
            return Thread.currentThread().getName() + (Schedulers.isInNonBlockingThread() ? " (non-blocking)" : "");
        }

        @Override
        public Admission admit(Fence presented) {
            threads.add(thread());
            return store.admit(presented);
        }

        @Override
        public boolean firstUse(String nonce, Instant expires) {
            nonceThreads.add(thread());
            return ((NonceStore) store.backend()).firstUse(nonce, expires);
        }
    }

    private static HighWaterStore store(String kind) {
        return switch (kind) {
            case "memory" -> InMemoryHighWaterStore.create();
            case "jdbc" -> JdbcHighWaterStore.of(TestR2dbc.jdbc());
            case "redis" -> RedisHighWaterStore.of(RedissonScriptClient.of(TestRedisson.shared()),
                    "fg:test:" + UUID.randomUUID() + ":");
            default -> throw new IllegalArgumentException(kind);
        };
    }

    /** Serves {@code REQUESTS} concurrent fenced calls through a filter on {@code scheduler}; answers the threads. */
    private RecordingStore serve(String kind, boolean requestSigned, Scheduler scheduler) {
        return serve(kind, requestSigned, scheduler, false);
    }

    private RecordingStore serve(String kind, boolean requestSigned, Scheduler scheduler, boolean uncoalesced) {
        HighWaterStore real = store(kind);
        RecordingStore recording = new RecordingStore(real);
        InboundFence fence = InboundFence.of(List.of(FencedRoute.of(Set.of("PUT"), "/accounts/{id}", "account:{id}")),
                recording, KEYS);
        if (requestSigned) {
            fence = fence.withRequestSignatures(recording, true);
        }
        server = NettyServer.start(WebHttpHandlerBuilder.webHandler(RouterFunctions.toWebHandler(RouterFunctions.route()
                .PUT("/accounts/{id}", request -> ServerResponse.ok().bodyValue("ok")).build()))
                .filter(scheduler != null ? FencingWebFilter.of(fence, refusal -> { }, scheduler)
                        : uncoalesced ? FencingWebFilter.of(fence).withoutCoalescing() : FencingWebFilter.of(fence)).build());
        OutboundFence outbound = OutboundFence.of(Destinations.of(server.baseUrl()), KEYS);
        WebClient client = WebClient.builder().filter(new ReactiveFencingExchangeFilterFunction(
                requestSigned ? outbound.withRequestSignatures() : outbound)).build();
        long token = real instanceof RedisHighWaterStore redis
                ? Math.max(System.currentTimeMillis() * 1000, redis.floor().map(FencingToken::value).orElse(0L))
                : System.currentTimeMillis() * 1000;
        Lease lease = Lease.presented(new Fence(ResourceName.of("account:" + UUID.randomUUID().toString().substring(0, 8)),
                FencingToken.of(token)), "test");
        String url = server.baseUrl() + lease.resource().value().replace("account:", "/accounts/");
        List<Integer> statuses = Flux.range(0, REQUESTS)
                .flatMap(i -> client.put().uri(url).bodyValue("request " + i).retrieve().toBodilessEntity()
                        .map(entity -> entity.getStatusCode().value()), REQUESTS)
                .contextWrite(ReactiveLeaseContext.with(lease))
                .collectList().block(Duration.ofSeconds(30));
        assertThat(statuses).hasSize(REQUESTS).containsOnly(200);
        assertThat(recording.threads).isNotEmpty();
        return recording;
    }

    @ParameterizedTest
    @CsvSource({"jdbc, false", "jdbc, true", "redis, false", "redis, true"})
    void blocking_stores_are_asked_off_the_event_loop(String kind, boolean requestSigned) {
        RecordingStore store = serve(kind, requestSigned, null);
        List<String> threads = new java.util.ArrayList<>(store.threads);
        threads.addAll(store.nonceThreads);
        assertThat(threads).allSatisfy(thread -> {
            assertThat(thread).doesNotContain("(non-blocking)").doesNotStartWith("reactor-http");
            assertThat(thread).startsWith("boundedElastic");
        });
        // Requests of one fence arriving together share admissions; each uses its own nonce.
        assertThat(store.threads).hasSizeBetween(1, REQUESTS);
        assertThat(store.nonceThreads).hasSize(requestSigned ? REQUESTS : 0);
    }

    /** Uncoalesced, every request asks the store itself, still off the event loop. */
    @Test
    void without_coalescing_each_request_asks_the_store() {
        RecordingStore store = serve("jdbc", false, null, true);
        assertThat(store.threads).hasSize(REQUESTS).allSatisfy(thread -> assertThat(thread).startsWith("boundedElastic"));
    }

    /** The probe sees the event loop where a store is checked in place, as the in-memory store may be. */
    @Test
    void in_place_checks_run_on_the_event_loop() {
        List<String> threads = serve("memory", false, Schedulers.immediate()).threads;
        assertThat(threads).as("in place, one call per request").hasSize(REQUESTS)
                .allSatisfy(thread -> assertThat(thread).startsWith("reactor-http").endsWith("(non-blocking)"));
    }
}
