package io.fenceguard.reactor.webflux;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.admission.Destinations;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.OutboundFence;
import io.fenceguard.admission.Problem;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseLostException;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.admission.JdbcHighWaterStore;
import io.fenceguard.reactor.ReactiveLeaseContext;
import io.fenceguard.reactor.ReactiveLeases;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.TestRedisson;
import io.fenceguard.test.support.TestServers;
import io.fenceguard.test.support.faults.PausableLeaseProvider;
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
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Mono;

/** The WebFlux filter and the reactive WebClient filter on real Netty servers. */
class FencingWebFilterTest {

    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final SigningKeys KEYS = SigningKeys.of(Map.of("k1", KEY), "k1");
    private static final SigningKeys OTHER_KEYS = SigningKeys.of(
            Map.of("k1", "fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.US_ASCII)), "k1");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<String> downstreamHeaders = new CopyOnWriteArrayList<>();
    private NettyServer downstream;
    private NettyServer server;
    private OutboundFence outbound;
    private String account;

    @BeforeEach
    void setUp() {
        account = UUID.randomUUID().toString().substring(0, 8);
        downstream = NettyServer.start(RouterFunctions.toHttpHandler(RouterFunctions.route()
                .POST("/audit/{id}", request -> {
                    downstreamHeaders.add(request.headers().firstHeader("Fencing-Token") + "");
                    return ServerResponse.ok().build();
                }).build()));
        outbound = OutboundFence.of(Destinations.of(downstream.baseUrl()), KEYS);
    }

    @AfterEach
    void tearDown() {
        if (server != null) {
            server.close();
        }
        downstream.close();
    }

    private void start(HighWaterStore store) {
        InboundFence fence = InboundFence.of(List.of(FencedRoute.of(Set.of("PUT", "POST"), "/accounts/{id}/**", "account:{id}")),
                store, KEYS);
        WebClient client = WebClient.builder().baseUrl(downstream.baseUrl())
                .filter(new ReactiveFencingExchangeFilterFunction(outbound)).build();
        RouterFunction<ServerResponse> routes = RouterFunctions.route()
                .PUT("/accounts/{id}", request -> ReactiveLeaseContext.current()
                        .map(lease -> lease.resource() + "@" + lease.token() + (lease.isPresented() ? " presented" : ""))
                        .defaultIfEmpty("no lease")
                        .flatMap(text -> ServerResponse.ok().bodyValue(text)))
                .POST("/accounts/{id}/audit", request -> client.post().uri("/audit/{id}", request.pathVariable("id"))
                        .retrieve().toBodilessEntity().then(ServerResponse.ok().bodyValue("forwarded")))
                .GET("/open", request -> ServerResponse.ok().bodyValue("open"))
                .build();
        HttpHandler handler = WebHttpHandlerBuilder.webHandler(RouterFunctions.toWebHandler(routes))
                .filter(FencingWebFilter.of(fence)).build();
        server = NettyServer.start(handler);
    }

    private HttpResponse<String> put(String path, String... headerValues) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.baseUrl() + path))
                .timeout(Duration.ofSeconds(10)).PUT(HttpRequest.BodyPublishers.noBody());
        for (String value : headerValues) {
            request.header("Fencing-Token", value);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String header(String resource, long token) {
        return KEYS.header(new Fence(ResourceName.of(resource), FencingToken.of(token))).value();
    }

    private static void assertProblem(HttpResponse<String> response, int status, String kind) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith(Problem.MEDIA_TYPE));
        assertThat(response.body()).contains("\"type\":\"urn:fenceguard:" + kind + "\"", "\"status\":" + status);
    }

    @Test
    void admits_a_current_token_and_binds_it_in_the_reactor_context() throws Exception {
        start(InMemoryHighWaterStore.create());
        HttpResponse<String> first = put("/accounts/" + account, header("account:" + account, 10));
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).isEqualTo("account:" + account + "@10 presented");

        assertThat(put("/accounts/" + account, header("account:" + account, 10)).statusCode()).as("same token continues")
                .isEqualTo(200);
        assertThat(put("/accounts/" + account, header("account:" + account, 11)).statusCode()).as("newer claims")
                .isEqualTo(200);
    }

    @Test
    void refuses_as_the_servlet_filter_does() throws Exception {
        start(InMemoryHighWaterStore.create());
        String resource = "account:" + account;
        put("/accounts/" + account, header(resource, 20));

        HttpResponse<String> stale = put("/accounts/" + account, header(resource, 19));
        assertProblem(stale, 409, "stale-token");
        assertThat(stale.body()).contains("\"token\":\"19\"", "\"highWater\":\"20\"", "\"resource\":\"" + resource + "\"",
                "\"instance\":\"/accounts/" + account + "\"");

        assertProblem(put("/accounts/" + account), 428, "missing-token");
        assertProblem(put("/accounts/" + account, "v1;r=" + resource + ";t=abc"), 400, "malformed-token");
        assertProblem(put("/accounts/" + account, header(resource, 21), header(resource, 21)), 400, "malformed-token");
        assertProblem(put("/accounts/" + account, FenceHeaders.unsigned(resource, 22)), 403, "untrusted-token");
        assertProblem(put("/accounts/" + account,
                OTHER_KEYS.header(new Fence(ResourceName.of(resource), FencingToken.of(23))).value()), 403, "untrusted-token");
        assertProblem(put("/accounts/" + account, header("account:someone-else", 24)), 403, "untrusted-token");

        // None of the refused requests moved the mark: 20 still continues, 19 is still stale.
        assertThat(put("/accounts/" + account, header(resource, 20)).statusCode()).isEqualTo(200);
    }

    @Test
    void unfenced_routes_pass_without_a_header() throws Exception {
        start(InMemoryHighWaterStore.create());
        HttpResponse<String> open = http.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/open")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(open.statusCode()).isEqualTo(200);
        assertThat(open.body()).isEqualTo("open");
    }

    @Test
    void a_store_that_cannot_answer_refuses_with_503() throws Exception {
        // The store starts on the test PostgreSQL; then its database becomes unreachable.
        JdbcEndpoint postgres = TestServers.postgres();
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(postgres.url());
        dataSource.setUser(postgres.user());
        dataSource.setPassword(postgres.password());
        HighWaterStore store = JdbcHighWaterStore.of(dataSource);
        dataSource.setUrl("jdbc:postgresql://127.0.0.1:1/gone?connectTimeout=2");
        start(store);
        assertProblem(put("/accounts/" + account, header("account:" + account, 30)), 503, "store-unavailable");
    }

    @Test
    void the_admitted_token_travels_on_to_the_next_service_through_webclient() throws Exception {
        start(InMemoryHighWaterStore.create());
        HttpRequest request = HttpRequest.newBuilder(URI.create(server.baseUrl() + "/accounts/" + account + "/audit"))
                .header("Fencing-Token", header("account:" + account, 40)).POST(HttpRequest.BodyPublishers.noBody()).build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(downstreamHeaders).containsExactly(header("account:" + account, 40));
    }

    @Test
    void webclient_reads_the_lease_of_a_reactive_chain_and_refuses_a_lost_one() {
        PausableLeaseProvider provider = PausableLeaseProvider.wrap(RedisLeaseProvider.of(RedissonScriptClient.of(TestRedisson.shared())));
        LeaseManager manager = LeaseManager.of(provider, LeaseConfig.builder().leaseTime(Duration.ofSeconds(1))
                .renewInterval(Duration.ofMillis(200)).build());
        try {
            ReactiveLeases leases = ReactiveLeases.of(manager);
            WebClient client = WebClient.builder().baseUrl(downstream.baseUrl())
                    .filter(new ReactiveFencingExchangeFilterFunction(outbound)).build();
            String resource = "account:" + account;

            Long token = leases.withLease(resource, Duration.ofSeconds(5), lease -> client.post().uri("/audit/1")
                    .retrieve().toBodilessEntity().thenReturn(lease.token().value())).block(Duration.ofSeconds(10));
            assertThat(downstreamHeaders).containsExactly(header(resource, token));

            // Outside any chain: no header.
            client.post().uri("/audit/2").retrieve().toBodilessEntity().block(Duration.ofSeconds(10));
            assertThat(downstreamHeaders).hasSize(2).last().isEqualTo("null");

            // A lease lost by the time of the call (renewals withheld as in a pause): the call is not sent.
            io.fenceguard.core.Lease lost = manager.acquire(resource, Duration.ofSeconds(5));
            provider.pauseRenewals(lost.resource(), Duration.ofSeconds(30));
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (lost.isValid() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            Mono<?> late = client.post().uri("/audit/3").retrieve().toBodilessEntity()
                    .contextWrite(ReactiveLeaseContext.with(lost));
            assertThatThrownBy(() -> late.block(Duration.ofSeconds(10))).isInstanceOf(LeaseLostException.class);
            assertThat(downstreamHeaders).hasSize(2);
        } finally {
            manager.close();
        }
    }
}
