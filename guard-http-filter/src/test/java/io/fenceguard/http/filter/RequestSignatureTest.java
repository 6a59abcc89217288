package io.fenceguard.http.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.admission.Problem;
import io.fenceguard.admission.RequestSignatures;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.http.filter.support.Instances;
import io.fenceguard.http.filter.support.TestApp;
import io.fenceguard.jdbc.admission.support.Stores;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.restclient.RestTemplateBuilder;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpMethod;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Request-signed fencing (RFC 9421 with Content-Digest) against a server that requires it, its nonces
 * in the JDBC high-water store's database (PostgreSQL): a captured request is admitted once, and its
 * headers do not fit another method, URI or body. Instance "a" calls "b" through every client.
 */
class RequestSignatureTest {

    static final SigningKeys CLIENT = SigningKeys.of(Map.of("k1", Base64.getDecoder().decode(Instances.KEY_A)), "k1");
    static final Instances instances = new Instances();
    static final LeaseManager leases = LeaseManager.of(InMemoryLeaseProvider.create());
    static final AtomicLong tokens = new AtomicLong(1_000);
    static final HttpClient http = HttpClient.newHttpClient();
    static ConfigurableApplicationContext caller;
    static int b;

    @BeforeAll
    static void start() {
        String schema = Stores.migratedPostgresSchema();
        Map<String, Object> properties = new LinkedHashMap<>(Instances.defaults());
        properties.put("test.store", "jdbc");
        properties.put("test.request-signatures", "true");
        b = Instances.port(instances.start("b", properties,
                ctx -> ctx.registerBean(DataSource.class, () -> Stores.postgres(schema, 8))));
        properties.put("test.destinations[0]", "http://localhost:" + b + "/accounts");
        caller = instances.start("a", properties, ctx -> ctx.registerBean(DataSource.class, () -> Stores.postgres(schema, 2)));
    }

    @AfterAll
    static void stop() {
        instances.close();
        leases.close();
    }

    /** A captured request: its method, URI, headers and body as sent. */
    record Sent(String method, URI uri, Map<String, String> headers, String body) {
        Sent with(String method, URI uri, String body) {
            return new Sent(method, uri, headers, body);
        }

        Sent withHeader(String name, String value) {
            Map<String, String> changed = new LinkedHashMap<>(headers);
            changed.put(name, value);
            return new Sent(method, uri, changed, body);
        }
    }

    static Sent signed(String account, String body) {
        URI uri = URI.create("http://127.0.0.1:" + b + "/accounts/" + account);
        Fence fence = new Fence(ResourceName.of("account:" + account), FencingToken.of(tokens.incrementAndGet()));
        return new Sent("PUT", uri, RequestSignatures.of(CLIENT, "Fencing-Token").sign("PUT", uri,
                FenceHeader.of(fence).value(), body.getBytes()), body);
    }

    static HttpResponse<String> send(Sent sent) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(sent.uri())
                .method(sent.method(), HttpRequest.BodyPublishers.ofString(sent.body()));
        sent.headers().forEach(request::header);
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    static long reached(String account) {
        return TestApp.REACHED.stream().filter(r -> r.path().equals("/accounts/" + account)).count();
    }

    @Test
    void aCapturedSignedRequestIsAdmittedOnceAndReplaysAreRefused() throws Exception {
        Sent captured = signed("r1", "{\"amount\":5}");
        assertThat(send(captured).statusCode()).isEqualTo(200);
        HttpResponse<String> replay = send(captured);
        assertThat(replay.statusCode()).isEqualTo(403);
        assertThat(replay.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith(Problem.MEDIA_TYPE));
        assertThat(replay.body()).contains("urn:fenceguard:replayed-request");
        assertThat(reached("r1")).isOne();
    }

    @Test
    void concurrentReplaysOfOneSignedRequestAreAdmittedExactlyOnce() throws Exception {
        Sent captured = signed("r2", "{\"amount\":6}");
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Integer>> answers = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                answers.add(pool.submit((Callable<Integer>) () -> send(captured).statusCode()));
            }
            List<Integer> statuses = new ArrayList<>();
            for (Future<Integer> answer : answers) {
                statuses.add(answer.get());
            }
            assertThat(statuses).containsOnly(200, 403).filteredOn(s -> s == 200).hasSize(1);
        } finally {
            pool.shutdownNow();
        }
        assertThat(reached("r2")).isOne();
    }

    @Test
    void anotherMethodUriOrBodyBreaksTheSignature() throws Exception {
        Sent original = signed("r3", "{\"amount\":7}");
        URI other = URI.create(original.uri() + "?amount=700");

        HttpResponse<String> method = send(original.with("PUT", original.uri(), original.body())
                .withHeader("Signature-Input", original.headers().get("Signature-Input")));
        assertThat(method.statusCode()).as("control: unchanged").isEqualTo(200);

        Sent asPost = signed("r4", "{\"amount\":7}");
        // Signed as POST, sent as PUT (the route fences PUT): the base differs in "@method".
        URI uri4 = asPost.uri();
        Fence fence4 = new Fence(ResourceName.of("account:r4"), FencingToken.of(tokens.incrementAndGet()));
        Map<String, String> postHeaders = RequestSignatures.of(CLIENT, "Fencing-Token").sign("POST", uri4,
                FenceHeader.of(fence4).value(), asPost.body().getBytes());
        assertRefused(send(new Sent("PUT", uri4, postHeaders, asPost.body())), "does not match");

        Sent forUri = signed("r5", "{\"amount\":7}");
        assertRefused(send(forUri.with("PUT", URI.create(forUri.uri() + "?amount=700"), forUri.body())), "does not match");

        Sent forBody = signed("r6", "{\"amount\":7}");
        assertRefused(send(forBody.with("PUT", forBody.uri(), "{\"amount\":700}")), "Content-Digest");
        assertRefused(send(forBody.with("PUT", forBody.uri(), "{\"amount\":700}")
                .withHeader("Content-Digest", RequestSignatures.contentDigest("{\"amount\":700}".getBytes()))), "does not match");
        assertRefused(send(forBody.withHeader("Fencing-Token", "v1;r=account:r6;t=" + (tokens.get() + 10))), "does not match");
        assertThat(List.of("r4", "r5", "r6")).allSatisfy(a -> assertThat(reached(a)).isZero());
        assertThat(other).isNotNull();
    }

    @Test
    void compactSignedUnsignedAndExpiredAreRefusedWhereRequestSignaturesAreRequired() throws Exception {
        Fence fence = new Fence(ResourceName.of("account:r7"), FencingToken.of(tokens.incrementAndGet()));
        URI uri = URI.create("http://127.0.0.1:" + b + "/accounts/r7");
        assertRefused(send(new Sent("PUT", uri, Map.of("Fencing-Token", CLIENT.header(fence).value()), "")),
                "requires a request signature");
        assertRefused(send(new Sent("PUT", uri, Map.of("Fencing-Token", FenceHeader.of(fence).value()), "")),
                "requires a request signature");
        Clock past = Clock.fixed(Instant.now().minus(Duration.ofMinutes(2)), ZoneOffset.UTC);
        Map<String, String> old = RequestSignatures.of(CLIENT, "Fencing-Token", past, Duration.ofSeconds(30))
                .sign("PUT", uri, FenceHeader.of(fence).value(), new byte[0]);
        assertRefused(send(new Sent("PUT", uri, old, "")), "expired");
        SigningKeys stranger = SigningKeys.of(Map.of("k1", "another-key-of-at-least-32-bytes!".getBytes()), "k1");
        Map<String, String> forged = RequestSignatures.of(stranger, "Fencing-Token")
                .sign("PUT", uri, FenceHeader.of(fence).value(), new byte[0]);
        assertRefused(send(new Sent("PUT", uri, forged, "")), "does not match");
        assertThat(reached("r7")).isZero();
    }

    @Test
    void aSignatureHoldsForItsOwnResourceAndItsEmptyBody() throws Exception {
        // Signed rightly for /accounts/r10, but with a token of account:r9: the route's resource decides.
        URI uri10 = URI.create("http://127.0.0.1:" + b + "/accounts/r10");
        Fence fence9 = new Fence(ResourceName.of("account:r9"), FencingToken.of(tokens.incrementAndGet()));
        Map<String, String> other = RequestSignatures.of(CLIENT, "Fencing-Token").sign("PUT", uri10,
                FenceHeader.of(fence9).value(), new byte[0]);
        assertRefused(send(new Sent("PUT", uri10, other, "")), "not for this endpoint's resource 'account:r10'");

        Sent empty = signed("r11", "");
        assertThat(empty.headers().get("Content-Digest"))
                .isEqualTo("sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:");
        assertRefused(send(empty.with("PUT", empty.uri(), "x")), "Content-Digest");
        assertThat(send(empty).statusCode()).isEqualTo(200);
        assertThat(reached("r10")).isZero();
        assertThat(reached("r11")).isOne();
    }

    static void assertRefused(HttpResponse<String> response, String detail) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(403);
        assertThat(response.body()).contains("urn:fenceguard:untrusted-token").contains(detail);
    }

    @Test
    void everyClientSignsItsRequestsAndTheServerAdmitsThem() throws Exception {
        RestClient restClient = caller.getBean(RestClient.Builder.class).build();
        RestTemplate restTemplate = caller.getBean(RestTemplateBuilder.class).build();
        WebClient.Builder webClientBuilder = WebClient.builder().clientConnector(new JdkClientHttpConnector());
        caller.getBeansOfType(WebClientCustomizer.class).values().forEach(c -> c.customize(webClientBuilder));
        WebClient webClient = webClientBuilder.build();
        JavaHttpFencing javaHttp = caller.getBean(JavaHttpFencing.class);
        try (Lease lease = leases.acquire("account:r8", Duration.ofSeconds(5));
                LeaseContext.Scope scope = LeaseContext.bind(lease)) {
            String expected = lease.fence() + " " + lease.fence();
            String url = "http://127.0.0.1:" + b + "/accounts/r8";
            assertThat(restClient.put().uri(url).body("{\"n\":1}").retrieve().body(String.class)).isEqualTo(expected);
            assertThat(restClient.put().uri(url).retrieve().body(String.class)).as("no body").isEqualTo(expected);
            assertThat(restTemplate.exchange(url, HttpMethod.PUT, new HttpEntity<>("{\"n\":2}"), String.class).getBody())
                    .isEqualTo(expected);
            assertThat(webClient.put().uri(url).bodyValue("{\"n\":3}").retrieve().bodyToMono(String.class).block())
                    .isEqualTo(expected);
            assertThat(webClient.put().uri(url).retrieve().bodyToMono(String.class).block()).as("no body")
                    .isEqualTo(expected);
            HttpRequest request = HttpRequest.newBuilder(URI.create(url)).PUT(HttpRequest.BodyPublishers.ofString("{\"n\":4}"))
                    .build();
            HttpRequest fenced = javaHttp.apply(request);
            assertThat(fenced.headers().firstValue("Signature-Input")).isPresent();
            assertThat(http.send(fenced, HttpResponse.BodyHandlers.ofString()).body()).isEqualTo(expected);
            assertThat(http.send(fenced, HttpResponse.BodyHandlers.ofString()).statusCode()).as("sent again").isEqualTo(403);
        }
        assertThat(reached("r8")).isEqualTo(6);
    }
}
