package io.fenceguard.redis;

import static io.fenceguard.redis.RedisHighWaterStoreTest.fence;
import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.admission.Admission;
import io.fenceguard.admission.Admission.Outcome;
import io.fenceguard.admission.TokenBound;
import io.fenceguard.redis.springdata.SpringDataRedisScriptClient;
import io.fenceguard.test.support.TestServers;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The HTTP filter's high-water store through Spring Data Redis on Lettuce, as two resource-server instances share
 * it (each its own factory and store): the admission rule, tokens beyond a double's precision, nonces used once,
 * and the compare-and-set reset (the full set is {@link RedisHighWaterStoreTest} on Redisson).
 */
class LettuceHighWaterStoreTest {

    static LettuceConnectionFactory factoryA;
    static LettuceConnectionFactory factoryB;
    static SpringDataRedisScriptClient clientA;
    static SpringDataRedisScriptClient clientB;
    static RedisHighWaterStore a;
    static RedisHighWaterStore b;

    @BeforeAll
    static void start() {
        factoryA = SpringDataFactories.lettuce(TestServers.redis().host(), TestServers.redis().port());
        factoryB = SpringDataFactories.lettuce(TestServers.redis().host(), TestServers.redis().port());
        SpringDataFactories.warmUp(factoryA);
        SpringDataFactories.warmUp(factoryB);
        String prefix = "fgtest:" + UUID.randomUUID().toString().substring(0, 8) + ":";
        clientA = SpringDataRedisScriptClient.of(factoryA);
        clientB = SpringDataRedisScriptClient.of(factoryB);
        a = RedisHighWaterStore.of(clientA, prefix, TokenBound.atMost(1));
        b = RedisHighWaterStore.of(clientB, prefix, TokenBound.atMost(1));
    }

    @AfterAll
    static void stop() {
        clientA.close();
        clientB.close();
        SpringDataFactories.shutdown(factoryA);
        SpringDataFactories.shutdown(factoryB);
    }

    static String mark(String resource) {
        try (RedisConnection connection = factoryA.getConnection()) {
            byte[] value = connection.stringCommands().get(a.key(ResourceName.of(resource)).getBytes(StandardCharsets.UTF_8));
            return value == null ? null : new String(value, StandardCharsets.UTF_8);
        }
    }

    @Test
    void requestSignedAdmissionAndIdempotencyKeysReadTheSameOverLettuce() {
        String r = "account:" + UUID.randomUUID().toString().substring(0, 8);
        String nonce = "k1:" + UUID.randomUUID();
        java.time.Instant expires = java.time.Instant.now().plusSeconds(30);
        assertThat(a.admit(fence(r, 7), nonce, expires)).contains(new Admission(fence(r, 7), FencingToken.of(7), Outcome.CLAIMED,
                new Admission.Replaced(null)));
        assertThat(b.admit(fence(r, 8), nonce, expires)).isEmpty();
        assertThat(mark(r)).isEqualTo("7");

        RedisIdempotencyStore onA = RedisIdempotencyStore.nextTo(a);
        RedisIdempotencyStore onB = RedisIdempotencyStore.nextTo(b);
        String key = "key-" + UUID.randomUUID();
        assertThat(onA.claim(fence(r, 7), key, "fp").kind()).isEqualTo(io.fenceguard.admission.IdempotencyStore.Claim.Kind.FIRST);
        byte[] body = {(byte) 0xff, 0, 'x'};
        onA.complete(ResourceName.of(r), key, new io.fenceguard.admission.IdempotencyStore.RecordedResponse(201, "text/plain", body));
        io.fenceguard.admission.IdempotencyStore.Claim retried = onB.claim(fence(r, 7), key, "fp");
        assertThat(retried.kind()).isEqualTo(io.fenceguard.admission.IdempotencyStore.Claim.Kind.COMPLETED);
        assertThat(retried.response().status()).isEqualTo(201);
        assertThat(retried.response().contentType()).isEqualTo("text/plain");
        assertThat(retried.response().body()).isEqualTo(body);
    }

    @Test
    void admissionRule() {
        String r = "account:" + UUID.randomUUID().toString().substring(0, 8);
        assertThat(a.admit(fence(r, 5))).isEqualTo(new Admission(fence(r, 5), FencingToken.of(5), Outcome.CLAIMED,
                new Admission.Replaced(null)));
        assertThat(b.admit(fence(r, 5)).outcome()).isEqualTo(Outcome.CONTINUED);
        Admission stale = b.admit(fence(r, 4));
        assertThat(stale.outcome()).isEqualTo(Outcome.STALE);
        assertThat(stale.highWater()).isEqualTo(FencingToken.of(5));
        assertThat(a.admit(fence(r, Long.MAX_VALUE)).outcome()).isEqualTo(Outcome.CLAIMED);
        assertThat(b.admit(fence(r, Long.MAX_VALUE - 1)).outcome()).isEqualTo(Outcome.STALE);
        assertThat(mark(r)).isEqualTo(Long.toString(Long.MAX_VALUE));
    }

    @Test
    void tokensBeyondDoublePrecisionAreComparedExactly() {
        String r = "account:big:" + UUID.randomUUID().toString().substring(0, 8);
        long big = (1L << 60) + 1;
        assertThat(a.admit(fence(r, big)).outcome()).isEqualTo(Outcome.CLAIMED);
        assertThat(b.admit(fence(r, big - 1)).outcome()).isEqualTo(Outcome.STALE);
        assertThat(b.admit(fence(r, big)).outcome()).isEqualTo(Outcome.CONTINUED);
        assertThat(mark(r)).isEqualTo(Long.toString(big));
    }

    @Test
    void aNonceIsUsedOnceAcrossInstancesAndExpires() throws Exception {
        String nonce = "k1:" + UUID.randomUUID();
        Instant expires = Instant.now().plusMillis(400);
        assertThat(a.firstUse(nonce, expires)).isTrue();
        assertThat(b.firstUse(nonce, expires)).isFalse();
        assertThat(a.firstUse(nonce, expires)).isFalse();
        Thread.sleep(600);
        assertThat(b.firstUse(nonce, Instant.now().plusSeconds(5))).as("expired with its signature").isTrue();
    }

    @Test
    void resetIsACompareAndSetSeenByBothInstances() {
        String r = "account:" + UUID.randomUUID().toString().substring(0, 8);
        FencingToken max = FencingToken.of(Long.MAX_VALUE);
        assertThat(a.reset(ResourceName.of(r), FencingToken.of(1), FencingToken.of(2))).isFalse();
        assertThat(a.admit(fence(r, Long.MAX_VALUE)).outcome()).isEqualTo(Outcome.CLAIMED);
        assertThat(b.reset(ResourceName.of(r), max, FencingToken.of(10))).isTrue();
        assertThat(a.reset(ResourceName.of(r), max, FencingToken.of(10))).as("applied once").isFalse();
        assertThat(a.admit(fence(r, 9)).outcome()).isEqualTo(Outcome.STALE);
        assertThat(b.admit(fence(r, 10)).outcome()).isEqualTo(Outcome.CONTINUED);
        assertThat(mark(r)).isEqualTo("10");
        assertThat(a.reset(ResourceName.of(r), FencingToken.of(10), null)).isTrue();
        assertThat(mark(r)).isNull();
    }
}
