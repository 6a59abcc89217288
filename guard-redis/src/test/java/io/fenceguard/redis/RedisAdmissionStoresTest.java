package io.fenceguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.Admission.Outcome;
import io.fenceguard.admission.IdempotencyStore.Claim;
import io.fenceguard.admission.IdempotencyStore.RecordedResponse;
import io.fenceguard.admission.IdempotentAdmissionStore;
import io.fenceguard.admission.SignedAdmissionStore;
import io.fenceguard.admission.TokenBound;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * The request-signed admission (nonce and mark in one script) and the idempotency store on a real Redis,
 * shared by two instances with their own clients.
 */
class RedisAdmissionStoresTest {

    static RedissonClient clientA;
    static RedissonClient clientB;
    static RedisHighWaterStore a;
    static RedisHighWaterStore b;

    @BeforeAll
    static void start() {
        clientA = RedisHighWaterStoreTest.client();
        clientB = RedisHighWaterStoreTest.client();
        String prefix = "fgtest:" + UUID.randomUUID().toString().substring(0, 8) + ":";
        a = RedisHighWaterStore.of(RedissonScriptClient.of(clientA), prefix, TokenBound.atMost(1));
        b = RedisHighWaterStore.of(RedissonScriptClient.of(clientB), prefix, TokenBound.atMost(1));
    }

    @AfterAll
    static void stop() {
        clientA.shutdown();
        clientB.shutdown();
    }

    static Fence fence(String resource, long token) {
        return new Fence(ResourceName.of(resource), FencingToken.of(token));
    }

    static Instant in30s() {
        return Instant.now().plusSeconds(30);
    }

    @Test
    void aNonceAdmitsOnceOnEitherInstanceAndAReplayChangesNoMark() {
        String nonce = "k1:" + UUID.randomUUID();
        Optional<Admission> first = a.admit(fence("acct:n1", 10), nonce, in30s());
        assertThat(first).hasValueSatisfying(admission -> assertThat(admission.outcome()).isEqualTo(Outcome.CLAIMED));
        assertThat(b.admit(fence("acct:n1", 11), nonce, in30s())).as("the same nonce on the other instance").isEmpty();
        assertThat(a.admit(fence("acct:n1", 10), "k1:" + UUID.randomUUID(), in30s()))
                .as("the replay did not raise the mark to 11")
                .hasValueSatisfying(admission -> assertThat(admission.outcome()).isEqualTo(Outcome.CONTINUED));
        assertThat(b.firstUse(nonce, in30s())).as("the nonce is recorded where firstUse looks").isFalse();
    }

    @Test
    void aStaleTokenIsRefusedAndItsNonceStaysUsed() {
        assertThat(a.admit(fence("acct:n2", 20), "k1:" + UUID.randomUUID(), in30s())).isPresent();
        String nonce = "k1:" + UUID.randomUUID();
        assertThat(b.admit(fence("acct:n2", 19), nonce, in30s())).hasValueSatisfying(admission -> {
            assertThat(admission.outcome()).isEqualTo(Outcome.STALE);
            assertThat(admission.highWater()).isEqualTo(FencingToken.of(20));
        });
        assertThat(a.admit(fence("acct:n2", 21), nonce, in30s())).isEmpty();
    }

    @Test
    void theNonceExpiresWithTheSignature() {
        String nonce = "k1:" + UUID.randomUUID();
        assertThat(a.admit(fence("acct:n3", 30), nonce, Instant.now().plusSeconds(30))).isPresent();
        Long ttl = clientA.getBucket(a.prefix() + RedisHighWaterStore.SLOT + "nonce:" + nonce).remainTimeToLive();
        assertThat(ttl).isBetween(25_000L, 30_000L);
    }

    @Test
    void concurrentUsesOfOneNonceAdmitExactlyOnce() throws Exception {
        String nonce = "k1:" + UUID.randomUUID();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Boolean>> answers = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                RedisHighWaterStore store = i % 2 == 0 ? a : b;
                answers.add(pool.submit((Callable<Boolean>) () -> store.admit(fence("acct:n4", 40), nonce, in30s()).isPresent()));
            }
            int admitted = 0;
            for (Future<Boolean> answer : answers) {
                admitted += answer.get() ? 1 : 0;
            }
            assertThat(admitted).isOne();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void anAdmissionWithAKeyClaimsItInTheSameScriptOnlyWhenTheTokenIsAdmitted() {
        String key = "key-" + UUID.randomUUID();
        String record = RedisIdempotencyStore.nextTo(a).recordKey(ResourceName.of("acct:c1"), key);
        assertThat(a.admit(fence("acct:c1", 50)).outcome()).isEqualTo(Outcome.CLAIMED);

        IdempotentAdmissionStore.ClaimedAdmission stale = b.admitClaiming(fence("acct:c1", 49), null, key, "fp-1");
        assertThat(stale.admission().outcome()).isEqualTo(Outcome.STALE);
        assertThat(stale.claim()).isNull();
        assertThat(clientA.getKeys().countExists(record)).as("a stale request leaves no claim").isZero();

        String nonce = "k1:" + UUID.randomUUID();
        IdempotentAdmissionStore.ClaimedAdmission first = a.admitClaiming(fence("acct:c1", 51),
                new SignedAdmissionStore.Nonce(nonce, in30s()), key, "fp-1");
        assertThat(first.admission().outcome()).isEqualTo(Outcome.CLAIMED);
        assertThat(first.admission().replaced().mark()).isEqualTo(FencingToken.of(50));
        assertThat(first.claim()).isEqualTo(Claim.first());
        assertThat(b.claim(fence("acct:c1", 51), key, "fp-1").kind()).as("the claim is where claim looks")
                .isEqualTo(Claim.Kind.IN_PROGRESS);

        IdempotentAdmissionStore.ClaimedAdmission replayed = b.admitClaiming(fence("acct:c1", 52),
                new SignedAdmissionStore.Nonce(nonce, in30s()), "key-" + UUID.randomUUID(), "fp-9");
        assertThat(replayed.admission()).as("the nonce was used: nothing decided").isNull();
        assertThat(a.admit(fence("acct:c1", 51)).outcome()).as("the replay did not raise the mark to 52")
                .isEqualTo(Outcome.CONTINUED);

        assertThat(b.admitClaiming(fence("acct:c1", 51), null, key, "fp-2").claim().kind())
                .isEqualTo(Claim.Kind.OTHER_REQUEST);
        b.complete(ResourceName.of("acct:c1"), key, new RecordedResponse(201, null, new byte[] {'o', 'k'}));
        IdempotentAdmissionStore.ClaimedAdmission retried = b.admitClaiming(fence("acct:c1", 51),
                new SignedAdmissionStore.Nonce("k1:" + UUID.randomUUID(), in30s()), key, "fp-1");
        assertThat(retried.admission().outcome()).isEqualTo(Outcome.CONTINUED);
        assertThat(retried.claim().kind()).isEqualTo(Claim.Kind.COMPLETED);
        assertThat(retried.claim().response().status()).isEqualTo(201);
        assertThat(retried.claim().response().contentType()).isNull();
        assertThat(retried.claim().response().body()).isEqualTo(new byte[] {'o', 'k'});
    }

    @Test
    void aKeyIsClaimedOnceAnsweredFromItsFirstResponseAndRefusedWithOtherBytes() {
        RedisIdempotencyStore onA = RedisIdempotencyStore.nextTo(a);
        RedisIdempotencyStore onB = RedisIdempotencyStore.nextTo(b);
        Fence fence = fence("acct:i1", 5);
        String key = "key-" + UUID.randomUUID();
        assertThat(onA.claim(fence, key, "fp-1")).isEqualTo(Claim.first());
        assertThat(onB.claim(fence, key, "fp-1").kind()).isEqualTo(Claim.Kind.IN_PROGRESS);
        assertThat(onB.claim(fence, key, "fp-2").kind()).isEqualTo(Claim.Kind.OTHER_REQUEST);

        byte[] body = {0, (byte) 0xff, (byte) 0xc3, 'o', 'k', '\n'};
        onA.complete(fence.resource(), key, new RecordedResponse(201, "application/octet-stream", body));
        Claim retried = onB.claim(fence("acct:i1", 6), key, "fp-1");
        assertThat(retried.kind()).isEqualTo(Claim.Kind.COMPLETED);
        assertThat(retried.response().status()).isEqualTo(201);
        assertThat(retried.response().contentType()).isEqualTo("application/octet-stream");
        assertThat(retried.response().body()).as("the bytes as first sent").isEqualTo(body);
        assertThat(onB.claim(fence, key, "fp-2").kind()).isEqualTo(Claim.Kind.OTHER_REQUEST);

        onB.abandon(fence.resource(), key);
        assertThat(onA.claim(fence, key, "fp-1").kind()).as("a completed key stays").isEqualTo(Claim.Kind.COMPLETED);
        long ttl = clientA.getMap(onA.recordKey(fence.resource(), key)).remainTimeToLive();
        assertThat(ttl).isBetween(RedisIdempotencyStore.RETENTION.toMillis() - 60_000, RedisIdempotencyStore.RETENTION.toMillis());
        assertThat(onA.claim(fence("acct:i1-other", 5), key, "fp-1")).as("keys belong to their resource")
                .isEqualTo(Claim.first());
    }

    @Test
    void aShorterRetentionIsTheRecordsTimeToLive() {
        RedisIdempotencyStore shorter = RedisIdempotencyStore.nextTo(a.withIdempotencyRetention(Duration.ofMinutes(10)));
        Fence fence = fence("acct:i-retention", 5);
        String key = "retention-" + System.nanoTime();
        assertThat(shorter.claim(fence, key, "fp")).isEqualTo(Claim.first());
        shorter.complete(fence.resource(), key, new RecordedResponse(200, null, new byte[0]));
        long ttl = clientA.getMap(shorter.recordKey(fence.resource(), key)).remainTimeToLive();
        assertThat(ttl).isBetween(Duration.ofMinutes(10).toMillis() - 60_000, Duration.ofMinutes(10).toMillis());
        assertThatIllegalArgumentException().isThrownBy(() -> a.withIdempotencyRetention(Duration.ofSeconds(59)))
                .withMessageContaining("at least PT1M");
    }

    @Test
    void anAbandonedOrExpiredClaimLetsARetryRunAgain() throws Exception {
        RedisIdempotencyStore onA = RedisIdempotencyStore.nextTo(a);
        RedisIdempotencyStore onB = RedisIdempotencyStore.nextTo(b);
        Fence fence = fence("acct:i2", 5);
        String key = "key-" + UUID.randomUUID();
        assertThat(onA.claim(fence, key, "fp-1")).isEqualTo(Claim.first());
        long ttl = clientA.getMap(onA.recordKey(fence.resource(), key)).remainTimeToLive();
        assertThat(ttl).isBetween(1L, RedisIdempotencyStore.IN_PROGRESS_TIMEOUT.toMillis());
        onA.abandon(fence.resource(), key);
        assertThat(onB.claim(fence, key, "fp-1")).isEqualTo(Claim.first());

        // A claim whose process died: its record expires, and a late completion does not bring it back.
        clientA.getMap(onA.recordKey(fence.resource(), key)).expire(Duration.ofMillis(50));
        Thread.sleep(200);
        onB.complete(fence.resource(), key, new RecordedResponse(200, null, new byte[0]));
        assertThat(clientA.getMap(onA.recordKey(fence.resource(), key)).isExists()).isFalse();
        assertThat(onA.claim(fence, key, "fp-2")).isEqualTo(Claim.first());
        onA.complete(fence.resource(), key, new RecordedResponse(204, null, new byte[0]));
        Claim done = onB.claim(fence, key, "fp-2");
        assertThat(done.kind()).isEqualTo(Claim.Kind.COMPLETED);
        assertThat(done.response().contentType()).isNull();
        assertThat(done.response().body()).isEmpty();
    }

    @Test
    void overJedisTheSignedAdmissionAndTheIdempotencyStoreReadTheSame() {
        try (redis.clients.jedis.JedisPool pool = new redis.clients.jedis.JedisPool(
                java.net.URI.create(io.fenceguard.test.support.TestServers.redis().uri()));
                io.fenceguard.redis.jedis.JedisScriptClient client = io.fenceguard.redis.jedis.JedisScriptClient.of(pool)) {
            RedisHighWaterStore jedis = RedisHighWaterStore.of(client, a.prefix(), TokenBound.atMost(1));
            String nonce = "k1:" + UUID.randomUUID();
            assertThat(a.admit(fence("acct:j1", 50), nonce, in30s())).isPresent();
            assertThat(jedis.admit(fence("acct:j1", 51), nonce, in30s())).isEmpty();
            assertThat(jedis.admit(fence("acct:j1", 49), "k1:" + UUID.randomUUID(), in30s()))
                    .hasValueSatisfying(admission -> assertThat(admission.highWater()).isEqualTo(FencingToken.of(50)));

            RedisIdempotencyStore onJedis = RedisIdempotencyStore.nextTo(jedis);
            String key = "key-" + UUID.randomUUID();
            assertThat(RedisIdempotencyStore.nextTo(a).claim(fence("acct:j1", 50), key, "fp")).isEqualTo(Claim.first());
            byte[] body = {(byte) 0x80, 'a', 0};
            RedisIdempotencyStore.nextTo(a).complete(ResourceName.of("acct:j1"), key, new RecordedResponse(200, "text/plain", body));
            Claim retried = onJedis.claim(fence("acct:j1", 50), key, "fp");
            assertThat(retried.kind()).isEqualTo(Claim.Kind.COMPLETED);
            assertThat(retried.response().body()).isEqualTo(body);
            assertThat(onJedis.claim(fence("acct:j1", 50), key, "other").kind()).isEqualTo(Claim.Kind.OTHER_REQUEST);
        }
    }

    @Test
    void concurrentClaimsOfOneKeyHaveExactlyOneFirst() throws Exception {
        RedisIdempotencyStore onA = RedisIdempotencyStore.nextTo(a);
        RedisIdempotencyStore onB = RedisIdempotencyStore.nextTo(b);
        Fence fence = fence("acct:i3", 5);
        String key = "key-" + UUID.randomUUID();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Claim.Kind>> answers = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                RedisIdempotencyStore store = i % 2 == 0 ? onA : onB;
                answers.add(pool.submit(() -> store.claim(fence, key, "fp-1").kind()));
            }
            List<Claim.Kind> kinds = new ArrayList<>();
            for (Future<Claim.Kind> answer : answers) {
                kinds.add(answer.get());
            }
            assertThat(kinds).containsOnly(Claim.Kind.FIRST, Claim.Kind.IN_PROGRESS)
                    .filteredOn(k -> k == Claim.Kind.FIRST).hasSize(1);
        } finally {
            pool.shutdownNow();
        }
    }
}
