package io.fenceguard.reactor.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.Destinations;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.NonBlockingAdmissionStore;
import io.fenceguard.admission.NonceStore;
import io.fenceguard.admission.OutboundFence;
import io.fenceguard.admission.SignedAdmissionStore;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.ResourceName;
import io.fenceguard.reactor.ReactiveLeaseContext;
import io.fenceguard.reactor.r2dbc.TestR2dbc;
import io.fenceguard.reactor.webflux.r2dbc.R2dbcHighWaterStore;
import io.fenceguard.redis.RedisHighWaterStore;
import io.fenceguard.redis.springdata.SpringDataRedisScriptClient;
import io.fenceguard.test.support.TestServers;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The WebFlux filter on stores that answer without blocking (R2DBC on PostgreSQL, Redis through Spring Data Redis on
 * Lettuce), served by a real Reactor Netty server: every store call is made on the server's event loop, the filter's
 * scheduler for blocking work never starts a thread, and the JVM's live thread count stays flat over thousands of
 * requests (printed, not asserted on: the machine's load is not the filter's).
 */
class NonBlockingAdmissionTest {

    private static final SigningKeys KEYS = SigningKeys.of(
            Map.of("k1", "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII)), "k1");
    private static final String BLOCKING_THREADS = "fence-blocking";

    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
    }

    /**
     * A decorator offering its store's non-blocking calls, decorated: records the thread of each call. Its blocking
     * calls fail the test: none is to be made.
     */
    private static final class RecordingStore implements SignedAdmissionStore, NonceStore {

        final List<String> threads = new CopyOnWriteArrayList<>();
        private final HighWaterStore store;
        private final NonBlockingAdmissionStore calls;

        RecordingStore(HighWaterStore store) {
            this.store = store;
            this.calls = store.nonBlocking().orElseThrow();
        }

        private void record() {
            threads.add(Thread.currentThread().getName()
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
        public boolean firstUse(String nonce, Instant expires) {
            throw new AssertionError("a blocking nonce check");
        }

        @Override
        public HighWaterStore backend() {
            return this;
        }

        @Override
        public Optional<NonBlockingAdmissionStore> nonBlocking() {
            return Optional.of(new NonBlockingAdmissionStore() {
                @Override
                public CompletionStage<Admission> admit(Fence presented) {
                    record();
                    return calls.admit(presented);
                }

                @Override
                public CompletionStage<Optional<Admission>> admit(Fence presented, SignedAdmissionStore.Nonce nonce) {
                    record();
                    return calls.admit(presented, nonce);
                }

                @Override
                public CompletionStage<Boolean> firstUse(String nonce, Instant expires) {
                    record();
                    return calls.firstUse(nonce, expires);
                }
            });
        }
    }

    private HighWaterStore store(String kind) {
        return switch (kind) {
            case "r2dbc" -> R2dbcHighWaterStore.of(TestR2dbc.r2dbc());
            case "lettuce" -> {
                LettuceConnectionFactory factory = new LettuceConnectionFactory(
                        new RedisStandaloneConfiguration(TestServers.redis().host(), TestServers.redis().port()));
                factory.afterPropertiesSet();
                factory.start();
                opened.add(factory::destroy);
                SpringDataRedisScriptClient client = SpringDataRedisScriptClient.of(factory);
                opened.add(client);
                yield RedisHighWaterStore.of(client, "fg:test:" + UUID.randomUUID() + ":");
            }
            default -> throw new IllegalArgumentException(kind);
        };
    }

    private static int liveThreads() {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }

    private static long threadsNamed(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith(prefix)).count();
    }

    @ParameterizedTest
    @CsvSource({"r2dbc, false, 1000", "r2dbc, true, 300", "lettuce, false, 2000", "lettuce, true, 300"})
    void theFilterAdmitsOnTheEventLoopAndTheThreadCountStaysFlat(String kind, boolean requestSigned, int requests) {
        RecordingStore recording = new RecordingStore(store(kind));
        InboundFence fence = InboundFence.of(List.of(FencedRoute.of(Set.of("PUT"), "/accounts/{id}", "account:{id}")),
                recording, KEYS);
        if (requestSigned) {
            fence = fence.withRequestSignatures(recording, true);
        }
        Scheduler blocking = Schedulers.newBoundedElastic(4, 1000, BLOCKING_THREADS);
        opened.add(blocking::dispose);
        NettyServer server = NettyServer.start(WebHttpHandlerBuilder.webHandler(RouterFunctions.toWebHandler(
                        RouterFunctions.route().PUT("/accounts/{id}", request -> ServerResponse.ok().bodyValue("ok")).build()))
                .filter(FencingWebFilter.of(fence, refusal -> { }, blocking)).build());
        opened.add(server);
        OutboundFence outbound = OutboundFence.of(Destinations.of(server.baseUrl()), KEYS);
        WebClient client = WebClient.builder().filter(new ReactiveFencingExchangeFilterFunction(
                requestSigned ? outbound.withRequestSignatures() : outbound)).build();
        long token = recording.store instanceof RedisHighWaterStore redis
                ? Math.max(System.currentTimeMillis() * 1000, redis.floor().map(FencingToken::value).orElse(0L))
                : System.currentTimeMillis() * 1000;
        Lease lease = Lease.presented(new Fence(ResourceName.of("account:" + UUID.randomUUID().toString().substring(0, 8)),
                FencingToken.of(token)), "test");
        String url = server.baseUrl() + lease.resource().value().replace("account:", "/accounts/");

        List<Integer> samples = new ArrayList<>();
        int rounds = 4;
        for (int round = 0; round <= rounds; round++) {
            int n = round == 0 ? 50 : requests / rounds;   // round 0 warms the connections up
            List<Integer> statuses = Flux.range(0, n)
                    .flatMap(i -> client.put().uri(url).bodyValue("request " + i).retrieve().toBodilessEntity()
                            .map(entity -> entity.getStatusCode().value()), 32)
                    .contextWrite(ReactiveLeaseContext.with(lease))
                    .collectList().block(Duration.ofSeconds(120));
            assertThat(statuses).hasSize(n).containsOnly(200);
            samples.add(liveThreads());
        }
        System.out.printf("fenceguard non-blocking admission, %s%s: live threads after warm-up and every %d "
                + "requests: %s%n", kind, requestSigned ? " request-signed" : "", requests / rounds, samples);

        assertThat(recording.threads).as("one store call per request").hasSize(50 + requests / rounds * rounds)
                .allSatisfy(thread -> assertThat(thread).startsWith("reactor-http").endsWith("(non-blocking)"));
        assertThat(threadsNamed(BLOCKING_THREADS)).as("threads of the filter's scheduler for blocking work").isZero();
    }
}
