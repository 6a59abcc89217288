package io.fenceguard.http.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.RequestSignatures;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.admission.TokenBound;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.http.filter.support.Http;
import io.fenceguard.redis.RedisHighWaterStore;
import io.fenceguard.redis.RedisIdempotencyStore;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.test.support.RedisProcess;
import io.fenceguard.test.support.TestServers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * Request-signed admission and idempotency keys through the servlet filter in real Tomcats, over one Redis
 * store that two instances share: a captured request is admitted once (replayed, altered or sent to the
 * other instance it is refused), a retry with the same key and bytes is answered from the first response,
 * and each request-signed admission is one script call to Redis.
 */
class RedisAdmissionTest {

    private static final SigningKeys KEYS = SigningKeys.of(Map.of("k1",
            "a-test-key-of-at-least-32-bytes!!".getBytes(StandardCharsets.US_ASCII)), "k1");
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final AtomicInteger TOKENS = new AtomicInteger(100);

    static RedissonClient clientA;
    static RedissonClient clientB;

    @BeforeAll
    static void connect() {
        clientA = redisson(TestServers.redis().uri());
        clientB = redisson(TestServers.redis().uri());
    }

    @AfterAll
    static void close() {
        clientA.shutdown();
        clientB.shutdown();
    }

    @Test
    void aCapturedRequestSignedCallIsAdmittedOnceAcrossInstancesSharingTheStore() throws Exception {
        String prefix = prefix();
        AtomicInteger applied = new AtomicInteger();
        try (IdempotencyTest.Server a = signedServer(store(clientA, prefix), applied);
                IdempotencyTest.Server b = signedServer(store(clientB, prefix), applied)) {
            Signed first = Signed.of("acc-1", TOKENS.incrementAndGet(), "{\"amount\":5}");
            assertThat(first.send(a).status()).isEqualTo(201);

            Http.Raw replay = first.send(a);
            assertThat(replay.status()).isEqualTo(403);
            assertThat(replay.text()).contains("urn:fenceguard:replayed-request");

            // The same bytes to the other instance behind the balancer: the nonce is in the shared store.
            Http.Raw elsewhere = first.send(b);
            assertThat(elsewhere.status()).isEqualTo(403);
            assertThat(elsewhere.text()).contains("urn:fenceguard:replayed-request");

            Signed fresh = Signed.of("acc-1", TOKENS.get(), "{\"amount\":5}");
            Http.Raw altered = fresh.withBody("{\"amount\":500}").send(a);
            assertThat(altered.status()).isEqualTo(403);
            assertThat(altered.text()).contains("urn:fenceguard:untrusted-token");

            // A compact-signed header is refused where request signatures are required.
            Http.Raw compact = send(a, "/entries/acc-1", Map.of(FenceHeader.DEFAULT_NAME,
                    KEYS.header(fence("acc-1", TOKENS.get())).value()), "{}");
            assertThat(compact.status()).isEqualTo(403);
            assertThat(compact.text()).contains("requires a request signature");

            assertThat(fresh.send(b).status()).as("the unaltered call, fresh nonce, same token").isEqualTo(201);
            Signed stale = Signed.of("acc-1", TOKENS.get() - 1, "{}");
            assertThat(stale.send(b).status()).as("older than the shared mark").isEqualTo(409);
            assertThat(applied.get()).isEqualTo(2);
        }
    }

    @Test
    void aRetryWithTheSameKeyAndBytesIsAnsweredFromTheFirstResponseByEitherInstance() throws Exception {
        String prefix = prefix();
        AtomicInteger applied = new AtomicInteger();
        RedisHighWaterStore storeA = store(clientA, prefix);
        RedisHighWaterStore storeB = store(clientB, prefix);
        // Instance a keeps keys in its store (admission and claim in one script), b in the key store next to it
        // (a claim of its own after the admission): the same records either way.
        try (IdempotencyTest.Server a = IdempotencyTest.Server.start(FencingFilter.of(unsignedFence(storeA))
                .withIdempotency(storeA), (request, response) -> entry(response, applied));
                IdempotencyTest.Server b = IdempotencyTest.Server.start(FencingFilter.of(unsignedFence(storeB))
                        .withIdempotency(RedisIdempotencyStore.nextTo(storeB)), (request, response) -> entry(response, applied))) {
            String id = "acc-" + UUID.randomUUID().toString().substring(0, 8);
            HttpResponse<String> first = a.post(id, 5, "k-1", "{\"amount\":7}");
            assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
            for (IdempotencyTest.Server server : List.of(a, b)) {
                HttpResponse<String> again = server.post(id, 5, "k-1", "{\"amount\":7}");
                assertThat(again.statusCode()).isEqualTo(201);
                assertThat(again.body()).isEqualTo(first.body());
                assertThat(again.headers().firstValue("Content-Type")).isEqualTo(first.headers().firstValue("Content-Type"));
                assertThat(again.headers().firstValue(FencingFilter.IDEMPOTENT_REPLAYED)).contains("true");
            }
            assertThat(applied.get()).as("applied once for three sends").isEqualTo(1);

            HttpResponse<String> otherBody = b.post(id, 5, "k-1", "{\"amount\":8}");
            assertThat(otherBody.statusCode()).isEqualTo(422);
            assertThat(otherBody.body()).contains("urn:fenceguard:idempotency-key-reused");
            HttpResponse<String> second = b.post(id, 6, "k-2", "{\"amount\":7}");
            assertThat(second.statusCode()).isEqualTo(201);
            assertThat(second.body()).isNotEqualTo(first.body());
            assertThat(applied.get()).isEqualTo(2);
        }
    }

    @Test
    void eachRequestSignedAdmissionIsOneScriptCallToRedis() throws Exception {
        oneScriptCallPerAdmission(false);
    }

    @Test
    void aRequestSignedCallWithAnIdempotencyKeyIsOneScriptForNonceMarkAndClaimAndOneForItsResponse() throws Exception {
        oneScriptCallPerAdmission(true);
    }

    /**
     * Counts the commands Redis ran for 20 request-signed admissions, on a server of this test's own; {@code keyed}:
     * each with an idempotency key of its own, whose claim comes with the admission and whose response is recorded
     * by a second script. (The auto-configuration's recording of the store's answers passes these combined calls on
     * as one: RecordingHighWaterStoreTest in fenceguard-spring-boot-autoconfigure.)
     */
    private static void oneScriptCallPerAdmission(boolean keyed) throws Exception {
        try (RedisProcess redis = RedisProcess.start()) {
            RedissonClient client = redisson(redis.uri());
            RedisHighWaterStore store = store(client, prefix());
            HighWaterStore admitting = store;
            AtomicInteger applied = new AtomicInteger();
            try (IdempotencyTest.Server server = keyed
                    ? IdempotencyTest.Server.start(FencingFilter.of(signedFence(admitting, store)).withIdempotency(store),
                            (request, response) -> entry(response, applied))
                    : signedServer(admitting, store, applied)) {
                // The first call loads the scripts into the server's cache; count the calls after it.
                Signed warm = Signed.of("warm", TOKENS.incrementAndGet(), "{}");
                assertThat((keyed ? warm.withKey("warm") : warm).send(server).status()).isEqualTo(201);
                redis.call("CONFIG", "RESETSTAT");
                int admissions = 20;
                for (int i = 0; i < admissions; i++) {
                    Signed call = Signed.of("acc-" + i, TOKENS.incrementAndGet(), "{\"n\":" + i + "}");
                    assertThat((keyed ? call.withKey("key-" + i) : call).send(server).status()).isEqualTo(201);
                }
                Map<String, Long> calls = commandCalls(redis);
                calls.keySet().removeIf(name -> name.startsWith("config") || name.startsWith("info"));
                if (keyed) {
                    // Sent by the client: per call one EVALSHA for nonce, mark and claim, one for the response (the
                    // claim on its own would be a third).
                    assertThat(calls).as("commands run by Redis for %d admissions with keys", admissions)
                            .containsEntry("evalsha", 2L * admissions);
                    assertThat(calls.get("hset")).as("claim and response recorded").isEqualTo(2L * admissions);
                    assertThat(applied.get()).isEqualTo(admissions + 1);
                    return;
                }
                // The stats count the commands a script runs too: GET and SET are the script's (nonce, floor,
                // mark); what the client sent is one EVALSHA per admission (two calls would be two EVALSHAs).
                assertThat(calls).as("commands run by Redis for %d admissions", admissions)
                        .containsEntry("evalsha", (long) admissions)
                        .containsOnlyKeys("evalsha", "get", "set");
            } finally {
                client.shutdown();
            }
        }
    }

    /** Calls per command since the last CONFIG RESETSTAT, from INFO commandstats. */
    private static Map<String, Long> commandCalls(RedisProcess redis) {
        Object info = redis.call("INFO", "commandstats");
        String text = info instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(info);
        Map<String, Long> calls = new HashMap<>();
        for (String line : text.split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                String count = line.substring(line.indexOf("calls=") + "calls=".length());
                calls.put(name, Long.parseLong(count.substring(0, count.indexOf(','))));
            }
        }
        return calls;
    }

    /** The authority the callers address: a balancer in front of both instances. */
    private static final String AUTHORITY = "ledger.internal";

    /** A request-signed call as captured: its headers and body, as signed for the balancer's address. */
    record Signed(String path, Map<String, String> headers, String body) {
        static Signed of(String id, long token, String body) {
            String path = "/entries/" + id;
            return new Signed(path, RequestSignatures.of(KEYS, FenceHeader.DEFAULT_NAME).sign("POST",
                    URI.create("http://" + AUTHORITY + path), FenceHeader.of(fence(id, token)).value(),
                    body.getBytes(StandardCharsets.UTF_8)), body);
        }

        Signed withBody(String other) {
            return new Signed(path, headers, other);
        }

        Signed withKey(String key) {
            Map<String, String> withKey = new java.util.LinkedHashMap<>(headers);
            withKey.put(FencingFilter.IDEMPOTENCY_KEY, key);
            return new Signed(path, withKey, body);
        }

        Http.Raw send(IdempotencyTest.Server server) throws Exception {
            return RedisAdmissionTest.send(server, path, headers, body);
        }
    }

    /** Sends a POST to {@code server} as the balancer forwards it ({@link Http#forwarded}). */
    private static Http.Raw send(IdempotencyTest.Server server, String path, Map<String, String> headers, String body)
            throws Exception {
        return Http.forwarded(server.uri("/").getPort(), AUTHORITY, "POST", path, headers, body);
    }

    private static IdempotencyTest.Server signedServer(RedisHighWaterStore store, AtomicInteger applied) throws Exception {
        return signedServer(store, store, applied);
    }

    private static IdempotencyTest.Server signedServer(HighWaterStore admitting, RedisHighWaterStore store,
            AtomicInteger applied) throws Exception {
        return IdempotencyTest.Server.start(FencingFilter.of(signedFence(admitting, store)),
                (request, response) -> entry(response, applied));
    }

    private static InboundFence signedFence(HighWaterStore admitting, RedisHighWaterStore store) {
        return InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/entries/{id}", "account:{id}")), admitting, KEYS)
                .withRequestSignatures(store, true);
    }

    private static InboundFence unsignedFence(RedisHighWaterStore store) {
        return InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/entries/{id}", "account:{id}")), store,
                SigningKeys.none());
    }

    private static void entry(jakarta.servlet.http.HttpServletResponse response, AtomicInteger applied)
            throws java.io.IOException {
        response.setStatus(201);
        response.setContentType("application/json");
        response.getOutputStream().write(("{\"entry\":" + applied.incrementAndGet() + "}").getBytes(StandardCharsets.UTF_8));
    }

    private static Fence fence(String id, long token) {
        return new Fence(ResourceName.of("account:" + id), FencingToken.of(token));
    }

    /** Small tokens against a floor of 1 (the loss floor is tested in fenceguard-redis). */
    private static RedisHighWaterStore store(RedissonClient client, String prefix) {
        return RedisHighWaterStore.of(RedissonScriptClient.of(client), prefix, TokenBound.atMost(1));
    }

    private static String prefix() {
        return "fgtest:" + UUID.randomUUID().toString().substring(0, 8) + ":";
    }

    private static RedissonClient redisson(String uri) {
        Config config = new Config();
        config.setCodec(StringCodec.INSTANCE);
        config.useSingleServer().setAddress(uri).setConnectionMinimumIdleSize(1).setConnectionPoolSize(4);
        return Redisson.create(config);
    }
}
