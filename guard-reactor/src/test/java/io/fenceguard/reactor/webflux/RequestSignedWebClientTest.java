package io.fenceguard.reactor.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.Destinations;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.NonceStore;
import io.fenceguard.admission.OutboundFence;
import io.fenceguard.admission.RequestSignatures;
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
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.ResponseEntity;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClient;

/**
 * Request signatures end to end on real servers: a WebClient with {@link ReactiveFencingExchangeFilterFunction}
 * signing (mode request) calls two Reactor Netty instances whose {@link FencingWebFilter}s share one store. The
 * signed call is admitted; the same request captured and sent again, with another body, or to the other instance
 * is refused (403), with the in-memory, PostgreSQL and Redis stores.
 */
class RequestSignedWebClientTest {

    private static final SigningKeys KEYS = SigningKeys.of(
            Map.of("k1", "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII)), "k1");
    private static final List<String> SIGNED_HEADERS = List.of("Fencing-Token", RequestSignatures.CONTENT_DIGEST,
            RequestSignatures.SIGNATURE_INPUT, RequestSignatures.SIGNATURE, "Content-Type");

    /** What the handlers received: the signed headers and the body. */
    private record Received(Map<String, String> headers, String body) {
    }

    private record Answer(int status, String body) {
    }

    private final List<Received> received = new CopyOnWriteArrayList<>();
    private NettyServer first;
    private NettyServer second;

    @AfterEach
    void tearDown() {
        for (NettyServer server : new NettyServer[] {first, second}) {
            if (server != null) {
                server.close();
            }
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

    private NettyServer instance(HighWaterStore store) {
        InboundFence fence = InboundFence.of(List.of(FencedRoute.of(Set.of("PUT"), "/accounts/{id}", "account:{id}")),
                store, KEYS).withRequestSignatures((NonceStore) store.backend(), true);
        return NettyServer.start(WebHttpHandlerBuilder.webHandler(RouterFunctions.toWebHandler(RouterFunctions.route()
                .PUT("/accounts/{id}", request -> request.bodyToMono(String.class).defaultIfEmpty("").flatMap(body -> {
                    Map<String, String> headers = new LinkedHashMap<>();
                    SIGNED_HEADERS.forEach(name -> {
                        String value = request.headers().firstHeader(name);
                        if (value != null) {
                            headers.put(name, value);
                        }
                    });
                    received.add(new Received(headers, body));
                    return ServerResponse.ok().bodyValue("recorded " + body);
                })).build())).filter(FencingWebFilter.of(fence)).build());
    }

    private static long token(HighWaterStore store) {
        long now = System.currentTimeMillis() * 1000;
        return store instanceof RedisHighWaterStore redis ? Math.max(now, redis.floor().map(FencingToken::value).orElse(0L))
                : now;
    }

    /** Sends exactly these headers and body, as a captured request is sent again; {@code host}: its Host header. */
    private static Answer raw(String url, Map<String, String> headers, String host, String body) {
        return HttpClient.create().headers(h -> {
            headers.forEach(h::set);
            if (host != null) {
                h.set("Host", host);
            }
        }).put().uri(url).send(ByteBufFlux.fromString(Mono.just(body)))
                .responseSingle((response, content) -> content.asString().defaultIfEmpty("")
                        .map(text -> new Answer(response.status().code(), text)))
                .block(Duration.ofSeconds(10));
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "jdbc", "redis"})
    void a_signed_call_is_admitted_once_and_nowhere_else(String kind) {
        HighWaterStore store = store(kind);
        first = instance(store);
        second = instance(store);
        String account = UUID.randomUUID().toString().substring(0, 8);
        Lease lease = Lease.presented(new Fence(ResourceName.of("account:" + account), FencingToken.of(token(store))),
                "test");
        OutboundFence outbound = OutboundFence.of(Destinations.of(first.baseUrl(), second.baseUrl()), KEYS)
                .withRequestSignatures();
        WebClient client = WebClient.builder().filter(new ReactiveFencingExchangeFilterFunction(outbound)).build();
        String url = first.baseUrl() + "/accounts/" + account;

        // Admitted: the body arrives as signed, its digest as the client computed it while writing.
        String body = "{\"amount\":5}";
        ResponseEntity<String> admitted = client.put().uri(url).header("Content-Type", "application/json").bodyValue(body)
                .retrieve().toEntity(String.class).contextWrite(ReactiveLeaseContext.with(lease))
                .block(Duration.ofSeconds(10));
        assertThat(admitted.getStatusCode().value()).isEqualTo(200);
        assertThat(admitted.getBody()).isEqualTo("recorded " + body);
        assertThat(received).hasSize(1);
        Map<String, String> captured = received.get(0).headers();
        assertThat(captured.get(RequestSignatures.CONTENT_DIGEST))
                .isEqualTo(RequestSignatures.contentDigest(body.getBytes(StandardCharsets.UTF_8)));
        assertThat(captured.get("Fencing-Token")).doesNotContain("sig=");

        // The same request captured and sent again: the nonce was used.
        Answer replayed = raw(url, captured, null, body);
        assertThat(replayed.status()).as(replayed.body()).isEqualTo(403);
        assertThat(replayed.body()).contains("urn:fenceguard:replayed-request");
        // With another body: the digest no longer matches.
        Answer altered = raw(url, captured, null, "{\"amount\":500}");
        assertThat(altered.status()).as(altered.body()).isEqualTo(403);
        assertThat(altered.body()).contains("urn:fenceguard:untrusted-token", "Content-Digest");
        // To the other instance behind the same store, addressed as the first (same target URI): the nonce is shared.
        Answer elsewhere = raw(second.baseUrl() + "/accounts/" + account, captured,
                URI.create(first.baseUrl()).getAuthority(), body);
        assertThat(elsewhere.status()).as(elsewhere.body()).isEqualTo(403);
        assertThat(elsewhere.body()).contains("urn:fenceguard:replayed-request");
        // To the other instance under its own address: not the signed target URI.
        Answer otherUri = raw(second.baseUrl() + "/accounts/" + account, captured, null, body);
        assertThat(otherUri.status()).as(otherUri.body()).isEqualTo(403);
        assertThat(otherUri.body()).contains("urn:fenceguard:untrusted-token");
        assertThat(received).as("no refused request reached a handler").hasSize(1);

        // The other instance admits a call signed for it, and a body streamed in chunks is digested whole.
        ResponseEntity<String> streamed = client.put().uri(second.baseUrl() + "/accounts/" + account)
                .header("Content-Type", "text/plain").body(Flux.just("part one, ", "part two, ", "part three"), String.class)
                .retrieve().toEntity(String.class).contextWrite(ReactiveLeaseContext.with(lease))
                .block(Duration.ofSeconds(10));
        assertThat(streamed.getBody()).isEqualTo("recorded part one, part two, part three");
        // And without a body: the digest of nothing.
        client.put().uri(url).retrieve().toBodilessEntity().contextWrite(ReactiveLeaseContext.with(lease))
                .block(Duration.ofSeconds(10));
        assertThat(received).hasSize(3);
        assertThat(received.get(2).headers().get(RequestSignatures.CONTENT_DIGEST))
                .isEqualTo(RequestSignatures.contentDigest(new byte[0]));

        // A compact-signed header is refused where request signatures are required.
        WebClient compact = WebClient.builder().filter(new ReactiveFencingExchangeFilterFunction(
                OutboundFence.of(Destinations.of(first.baseUrl()), KEYS))).build();
        WebClientResponseException refused = compact.put().uri(url).bodyValue(body).retrieve().toEntity(String.class)
                .contextWrite(ReactiveLeaseContext.with(lease)).onErrorResume(WebClientResponseException.class, Mono::error)
                .map(entity -> (WebClientResponseException) null)
                .onErrorResume(WebClientResponseException.class, Mono::just).block(Duration.ofSeconds(10));
        assertThat(refused).isNotNull();
        assertThat(refused.getStatusCode().value()).isEqualTo(403);
        assertThat(refused.getResponseBodyAsString()).contains("requires a request signature");
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory"})
    void a_body_above_the_limit_is_refused_before_the_store(String kind) {
        HighWaterStore store = store(kind);
        InboundFence fence = InboundFence.of(List.of(FencedRoute.of(Set.of("PUT"), "/accounts/{id}", "account:{id}")),
                store, KEYS).withRequestSignatures((NonceStore) store.backend(), true);
        first = NettyServer.start(WebHttpHandlerBuilder.webHandler(RouterFunctions.toWebHandler(RouterFunctions.route()
                .PUT("/accounts/{id}", request -> ServerResponse.ok().bodyValue("ran")).build()))
                .filter(FencingWebFilter.of(fence).withMaxSignedBodyBytes(16)).build());
        Lease lease = Lease.presented(new Fence(ResourceName.of("account:a"), FencingToken.of(token(store))), "test");
        WebClient client = WebClient.builder().filter(new ReactiveFencingExchangeFilterFunction(
                OutboundFence.of(Destinations.of(first.baseUrl()), KEYS).withRequestSignatures())).build();
        for (Flux<String> body : List.of(Flux.just("x".repeat(17)), Flux.just("x".repeat(10), "y".repeat(10)))) {
            Answer answer = client.put().uri(first.baseUrl() + "/accounts/a").body(body, String.class)
                    .exchangeToMono(response -> response.bodyToMono(String.class)
                            .map(text -> new Answer(response.statusCode().value(), text)))
                    .contextWrite(ReactiveLeaseContext.with(lease)).block(Duration.ofSeconds(10));
            assertThat(answer.status()).as(answer.body()).isEqualTo(413);
            assertThat(answer.body()).contains("urn:fenceguard:body-too-large");
        }
        Answer small = client.put().uri(first.baseUrl() + "/accounts/a").bodyValue("x".repeat(16))
                .exchangeToMono(response -> response.bodyToMono(String.class)
                        .map(text -> new Answer(response.statusCode().value(), text)))
                .contextWrite(ReactiveLeaseContext.with(lease)).block(Duration.ofSeconds(10));
        assertThat(small).isEqualTo(new Answer(200, "ran"));
    }
}
