package io.fenceguard.http.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.admission.RequestSignatures;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.admission.TokenBound;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.http.filter.support.Http;
import io.fenceguard.http.filter.support.Instances;
import io.fenceguard.http.filter.support.TestApp;
import io.fenceguard.http.filter.support.TestWiring;
import io.fenceguard.jdbc.admission.support.Stores;
import io.fenceguard.redis.RedisHighWaterStore;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.test.support.TestServers;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Request-signed calls with idempotency keys in every store mode, through the test application with the
 * filter as an application wires it, two instances behind one address sharing the store (in memory: one
 * instance, the store being its own): a captured call replayed, altered or sent to the other instance is
 * refused (403), and a retry with the same key and bytes (signed anew, as a client retries) is answered from
 * the first response, by either instance, with the handler run once.
 */
class StoreModesTest {

    private static final SigningKeys CLIENT = SigningKeys.of(Map.of("k1",
            Base64.getDecoder().decode(Instances.KEY_A)), "k1");
    /** The address the callers use: a balancer in front of the instances. */
    private static final String AUTHORITY = "accounts.internal";
    private static final AtomicLong TOKENS = new AtomicLong(1_000);

    enum Mode { MEMORY, JDBC, JDBC_JOINED, REDIS }

    static RedissonClient redisson;
    static String schema;

    @BeforeAll
    static void start() {
        schema = Stores.migratedPostgresSchema();
        Config config = new Config();
        config.useSingleServer().setAddress(TestServers.redis().uri()).setConnectionMinimumIdleSize(1)
                .setConnectionPoolSize(4);
        redisson = Redisson.create(config);
    }

    @AfterAll
    static void stop() {
        redisson.shutdown();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void capturedCallsAreRefusedAndRetriesAnsweredFromTheFirstResponse(Mode mode) throws Exception {
        try (Instances instances = new Instances()) {
            List<Integer> ports = start(instances, mode);
            int a = ports.get(0);
            int b = ports.get(ports.size() - 1);
            String account = mode.name().toLowerCase() + "-" + UUID.randomUUID().toString().substring(0, 8);
            long token = TOKENS.incrementAndGet();

            Call first = Call.signed(account, token, "{\"amount\":5}", "key-1");
            Http.Raw answered = first.send(a);
            assertThat(answered.status()).as(answered.text()).isEqualTo(200);

            for (int port : List.of(a, b)) {
                Http.Raw replayed = first.send(port);
                assertThat(replayed.status()).as("the captured call again, %s", mode).isEqualTo(403);
                assertThat(replayed.text()).contains("urn:fenceguard:replayed-request");
            }
            Http.Raw altered = Call.signed(account, token, "{\"amount\":5}", "key-2").withBody("{\"amount\":500}").send(b);
            assertThat(altered.status()).isEqualTo(403);
            assertThat(altered.text()).contains("urn:fenceguard:untrusted-token");

            for (int port : List.of(a, b)) {
                // The client retries: the same key and bytes, signed anew (a fresh nonce).
                Http.Raw retried = Call.signed(account, token, "{\"amount\":5}", "key-1").send(port);
                assertThat(retried.status()).as(retried.text()).isEqualTo(200);
                assertThat(retried.text()).contains("Idempotent-Replayed: true");
                assertThat(retried.body()).isEqualTo(answered.body());
            }
            Http.Raw reused = Call.signed(account, token, "{\"amount\":6}", "key-1").send(b);
            assertThat(reused.status()).isEqualTo(422);
            assertThat(reused.text()).contains("urn:fenceguard:idempotency-key-reused");
            Http.Raw stale = Call.signed(account, token - 1, "{\"amount\":5}", "key-3").send(b);
            assertThat(stale.status()).as("older than the shared mark").isEqualTo(409);
            assertThat(TestApp.REACHED.stream().filter(r -> r.path().equals("/accounts/" + account)).count())
                    .as("the handler ran once, %s", mode).isOne();
        }
    }

    /** The mode's instances (two sharing the store; in memory one) and their ports. */
    private static List<Integer> start(Instances instances, Mode mode) {
        Map<String, Object> properties = new LinkedHashMap<>(Instances.defaults());
        properties.put("test.request-signatures", "true");
        properties.put("test.idempotency", "true");
        if (mode == Mode.JDBC || mode == Mode.JDBC_JOINED) {
            properties.put("test.store", "jdbc");
            properties.put("test.join-transaction", Boolean.toString(mode == Mode.JDBC_JOINED));
        }
        String prefix = "fgtest-modes-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        int count = mode == Mode.MEMORY ? 1 : 2;
        List<Integer> ports = new java.util.ArrayList<>();
        for (int i = 0; i < count; i++) {
            ports.add(Instances.port(instances.start(mode + "-" + i, properties, ctx -> {
                if (mode == Mode.JDBC || mode == Mode.JDBC_JOINED) {
                    DataSource pool = Stores.postgres(schema, 8);
                    ctx.registerBean(DataSource.class, () -> pool);
                } else if (mode == Mode.REDIS) {
                    ctx.registerBean(TestWiring.CustomStore.class, () -> () -> RedisHighWaterStore.of(
                            RedissonScriptClient.of(redisson), prefix, TokenBound.atMost(1)));
                }
            })));
        }
        return ports;
    }

    /** A request-signed PUT as captured: headers and body, signed for the balancer's address. */
    record Call(String path, Map<String, String> headers, String body) {

        static Call signed(String account, long token, String body, String key) {
            String path = "/accounts/" + account;
            Fence fence = new Fence(ResourceName.of("account:" + account), FencingToken.of(token));
            Map<String, String> headers = new LinkedHashMap<>(RequestSignatures.of(CLIENT, "Fencing-Token").sign("PUT",
                    URI.create("http://" + AUTHORITY + path), FenceHeader.of(fence).value(),
                    body.getBytes(StandardCharsets.UTF_8)));
            headers.put(FencingFilter.IDEMPOTENCY_KEY, key);
            return new Call(path, headers, body);
        }

        Call withBody(String other) {
            return new Call(path, headers, other);
        }

        /** Sends this call as the balancer forwards it ({@link Http#forwarded}). */
        Http.Raw send(int port) throws Exception {
            return Http.forwarded(port, AUTHORITY, "PUT", path, headers, body);
        }
    }
}
