package io.fenceguard.http.filter.bench;

import io.fenceguard.admission.Destinations;
import io.fenceguard.admission.FenceHeader;
import io.fenceguard.admission.OutboundFence;
import io.fenceguard.admission.RequestSignatures;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.http.filter.FencingFilter;
import io.fenceguard.http.filter.spring.FencingExchangeFilterFunction;
import jakarta.servlet.FilterChain;
import java.util.List;
import java.util.Set;
import org.openjdk.jmh.annotations.Level;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import io.fenceguard.test.support.JmhRun;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.client.reactive.AbstractClientHttpRequest;
import org.springframework.web.reactive.function.BodyInserter;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import org.springframework.web.reactive.function.client.ExchangeStrategies;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * JMH: the per-request CPU cost of the fencing header, without any HTTP around it: strict parse of a
 * signed header, parse + HMAC-SHA256 verification (what the filter does before consulting its store),
 * and signing (what a client adds per outgoing request). Then a request signature over a 1 KiB body as the
 * servlet side's {@code WebClient} filter makes it (the body written into an in-memory request, no network),
 * against its anchor, the same signature made directly ({@code RequestSignatures.sign}: one digest, one HMAC),
 * and the same with a 64 KiB body. Then the servlet filter itself on a PUT without a body ({@code MockHttpServletRequest},
 * a chain that does nothing): request-signed against its anchor, compact signed, and the in-memory store's record of
 * a nonce, the part of a request-signed admission those leave out. With JMH's allocation profiler ({@code -prof gc}, through JMH's own main) the
 * bytes allocated per call show whether the body is copied, independent of the machine's load.
 *
 * <pre>
 * ./mvnw -B -pl guard-http-filter -am -Pbench -DskipTests verify
 *   -Dbench.jmh.forks=1 -Dbench.jmh.warmup=2 -Dbench.jmh.iterations=3 -Dbench.jmh.time=1 (seconds per iteration)
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FenceHeaderBenchmark {

    private final Fence fence = new Fence(ResourceName.of("account:42"), FencingToken.of(1_795_000_000_000_001L));
    private static final URI TARGET = URI.create("http://ledger.internal/entries/42");
    private static final byte[] BODY = new byte[1024];
    private static final byte[] LARGE_BODY = new byte[64 * 1024];
    private static final ExchangeStrategies STRATEGIES = ExchangeStrategies.withDefaults();

    private SigningKeys keys;
    private String signedValue;
    private LeaseManager leases;
    private Lease lease;
    private RequestSignatures signatures;
    private FencingExchangeFilterFunction webClientSigning;

    @Setup
    public void setUp() {
        keys = SigningKeys.of(Map.of(
                "k1", "fenceguard-bench-key-one-0123456789abcdef".getBytes(StandardCharsets.UTF_8),
                "k2", "fenceguard-bench-key-two-0123456789abcdef".getBytes(StandardCharsets.UTF_8)), "k1");
        signedValue = keys.header(fence).value();
        keys.verify(FenceHeader.parse(signedValue));
        leases = LeaseManager.of(InMemoryLeaseProvider.create());
        lease = leases.acquire("account:42", Duration.ofSeconds(1));
        signatures = RequestSignatures.of(keys, FenceHeader.DEFAULT_NAME);
        webClientSigning = new FencingExchangeFilterFunction(OutboundFence.of(Destinations.of("http://ledger.internal"),
                keys).withRequestSignatures());
    }

    @TearDown
    public void tearDown() {
        lease.close();
    }

    @Benchmark
    public FenceHeader parse() {
        return FenceHeader.parse(signedValue);
    }

    @Benchmark
    public FenceHeader parseAndVerify() {
        FenceHeader header = FenceHeader.parse(signedValue);
        keys.verify(header);
        return header;
    }

    @Benchmark
    public String sign() {
        return keys.header(fence).value();
    }

    /** The anchor of {@link #webClientRequestSignature1KiB}: one digest of the body and one HMAC. */
    @Benchmark
    public Map<String, String> requestSignature1KiB() {
        return signatures.sign("PUT", TARGET, FenceHeader.of(fence).value(), BODY);
    }

    /** A signed PUT of a 1 KiB body through the servlet side's WebClient filter, written into memory. */
    @Benchmark
    public Object webClientRequestSignature1KiB() {
        try (LeaseContext.Scope ignored = LeaseContext.bind(lease)) {
            ClientRequest request = ClientRequest.create(HttpMethod.PUT, TARGET).body(BodyInserters.fromValue(BODY)).build();
            return webClientSigning.filter(request, WRITTEN).block();
        }
    }

    /** The anchor of {@link #webClientRequestSignature64KiB}. */
    @Benchmark
    public Map<String, String> requestSignature64KiB() {
        return signatures.sign("PUT", TARGET, FenceHeader.of(fence).value(), LARGE_BODY);
    }

    /** As {@link #webClientRequestSignature1KiB} with a 64 KiB body: the digest dominates, a body copy shows. */
    @Benchmark
    public Object webClientRequestSignature64KiB() {
        try (LeaseContext.Scope ignored = LeaseContext.bind(lease)) {
            ClientRequest request = ClientRequest.create(HttpMethod.PUT, TARGET).body(BodyInserters.fromValue(LARGE_BODY))
                    .build();
            return webClientSigning.filter(request, WRITTEN).block();
        }
    }

    /** Writes the request's body into an {@link InMemoryRequest} and answers 200. */
    private static final ExchangeFunction WRITTEN = request -> {
        InMemoryRequest sink = new InMemoryRequest(request.method(), request.url());
        return request.body().insert(sink, new BodyInserter.Context() {
            @Override
            public java.util.List<org.springframework.http.codec.HttpMessageWriter<?>> messageWriters() {
                return STRATEGIES.messageWriters();
            }

            @Override
            public java.util.Optional<org.springframework.http.server.reactive.ServerHttpRequest> serverRequest() {
                return java.util.Optional.empty();
            }

            @Override
            public Map<String, Object> hints() {
                return Map.of();
            }
        }).then(Mono.fromSupplier(() -> ClientResponse.create(HttpStatus.OK)
                .header("X-Signed", String.valueOf(sink.getHeaders().getFirst("Signature"))).build()));
    };

    /** A client request that takes its body in memory and drops it. */
    private static final class InMemoryRequest extends AbstractClientHttpRequest {
        private final HttpMethod method;
        private final URI uri;

        InMemoryRequest(HttpMethod method, URI uri) {
            this.method = method;
            this.uri = uri;
        }

        @Override
        public HttpMethod getMethod() {
            return method;
        }

        @Override
        public URI getURI() {
            return uri;
        }

        @Override
        public org.springframework.core.io.buffer.DataBufferFactory bufferFactory() {
            return DefaultDataBufferFactory.sharedInstance;
        }

        @Override
        public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
            return doCommit(() -> Flux.from(body).doOnNext(DataBufferUtils::release).then());
        }

        @Override
        public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
            return writeWith(Flux.from(body).concatMap(Flux::from));
        }

        @Override
        public Mono<Void> setComplete() {
            return doCommit();
        }

        @Override
        protected void applyHeaders() {
        }

        @Override
        protected void applyCookies() {
        }

        @Override
        public <T> T getNativeRequest() {
            throw new UnsupportedOperationException("no native request");
        }
    }

    /**
     * The servlet filter on a PUT without a body and a compact signed header, as the HTTP benchmark's "in-memory,
     * compact signed" row sends it: the anchor of {@link #filterRequestSigned}. The chain does nothing.
     */
    @Benchmark
    public Object filterCompact(FilterState state) throws Exception {
        MockHttpServletResponse response = new MockHttpServletResponse();
        state.compactFilter.doFilter(state.compactRequest, response, state.chain);
        return response;
    }

    /**
     * The servlet filter on a request-signed PUT without a body, as the HTTP benchmark's "in-memory,
     * request-signed" row sends it (signed beforehand, a nonce of its own each; the nonces recorded as first used
     * without a store, {@link #inMemoryNonce} is that part): what checking a request signature costs the filter.
     */
    @Benchmark
    public Object filterRequestSigned(FilterState state) throws Exception {
        MockHttpServletResponse response = new MockHttpServletResponse();
        state.signedFilter.doFilter(state.nextSigned(), response, state.chain);
        return response;
    }

    /** The in-memory store's record of a nonce's first use, each call a new nonce, the expired ones forgotten. */
    @Benchmark
    public boolean inMemoryNonce(FilterState state) {
        return state.nonces.firstUse(state.nextNonce(), java.time.Instant.now().plusSeconds(1));
    }

    /** Two servlet filters on the in-memory store and the requests they check. */
    @State(Scope.Benchmark)
    public static class FilterState {
        private static final int SIGNED_REQUESTS = 4096;
        private final SigningKeys keys = SigningKeys.of(Map.of(
                "k1", "fenceguard-bench-key-one-0123456789abcdef".getBytes(StandardCharsets.UTF_8),
                "k2", "fenceguard-bench-key-two-0123456789abcdef".getBytes(StandardCharsets.UTF_8)), "k1");
        private final Fence fence = new Fence(ResourceName.of("account:bench"), FencingToken.of(42));
        private final InMemoryHighWaterStore nonces = InMemoryHighWaterStore.create();
        private final FilterChain chain = (request, response) -> {
        };
        private FencingFilter compactFilter;
        private FencingFilter signedFilter;
        private MockHttpServletRequest compactRequest;
        private final MockHttpServletRequest[] signed = new MockHttpServletRequest[SIGNED_REQUESTS];
        private int next;
        private final String noncePrefix = Long.toString(System.nanoTime(), 36) + "-";
        private long nonceCount;

        @Setup(Level.Trial)
        public void setUp() {
            List<FencedRoute> routes = List.of(FencedRoute.of(Set.of("PUT"), "/accounts/{id}", "account:{id}"));
            compactFilter = FencingFilter.of(InboundFence.of(routes, InMemoryHighWaterStore.create(), keys));
            // Every nonce taken as first used: the requests are sent again on every lap of the ring.
            signedFilter = FencingFilter.of(InboundFence.of(routes, InMemoryHighWaterStore.create(), keys)
                    .withRequestSignatures((nonce, expires) -> true, true));
            compactRequest = request();
            compactRequest.addHeader(FenceHeader.DEFAULT_NAME, keys.header(fence).value());
        }

        /** Signed anew for each iteration: a signature lives 30 seconds. */
        @Setup(Level.Iteration)
        public void sign() {
            RequestSignatures signer = RequestSignatures.of(keys, FenceHeader.DEFAULT_NAME);
            String unsigned = FenceHeader.of(fence).value();
            URI target = URI.create("http://127.0.0.1:8080/accounts/bench");
            for (int i = 0; i < SIGNED_REQUESTS; i++) {
                MockHttpServletRequest request = request();
                signer.sign("PUT", target, unsigned, new byte[0]).forEach(request::addHeader);
                signed[i] = request;
            }
        }

        private static MockHttpServletRequest request() {
            MockHttpServletRequest request = new MockHttpServletRequest("PUT", "/accounts/bench");
            request.setServerName("127.0.0.1");
            request.setServerPort(8080);
            request.setServletPath("/accounts/bench");
            request.setContent(new byte[0]);
            return request;
        }

        MockHttpServletRequest nextSigned() {
            MockHttpServletRequest request = signed[next];
            next = (next + 1) % SIGNED_REQUESTS;
            // the body read again: each lap reads the same (empty) content
            request.setContent(new byte[0]);
            return request;
        }

        String nextNonce() {
            return noncePrefix + nonceCount++;
        }
    }

    public static void main(String[] args) throws Exception {
        JmhRun.printResults(FenceHeaderBenchmark.class, "fenceguard HTTP fencing header (JMH, average time per call, signed header)",
                name -> "", Map.of("webClientRequestSignature1KiB", "requestSignature1KiB",
                        "webClientRequestSignature64KiB", "requestSignature64KiB",
                        "filterRequestSigned", "filterCompact"));
    }
}
