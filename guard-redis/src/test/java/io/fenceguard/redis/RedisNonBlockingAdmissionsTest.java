package io.fenceguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.IdempotencyStore.Claim;
import io.fenceguard.admission.IdempotencyStore.RecordedResponse;
import io.fenceguard.admission.IdempotentAdmissionStore.ClaimedAdmission;
import io.fenceguard.admission.NonBlockingAdmissionStore;
import io.fenceguard.admission.NonBlockingIdempotencyStore;
import io.fenceguard.admission.SignedAdmissionStore;
import io.fenceguard.admission.TokenBound;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.redis.jedis.JedisScriptClient;
import io.fenceguard.redis.springdata.SpringDataRedisScriptClient;
import io.fenceguard.test.support.RedisProcess;
import io.fenceguard.test.support.TestServers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;

/**
 * The Redis store's non-blocking admissions through Spring Data Redis on Lettuce, on a real Redis: the blocking
 * store's rule (a newer token claims, the same continues, an older one is refused), a replayed nonce refused, marks
 * shared with the blocking store of another client on the same keys, each call made from a thread that must not
 * block and answered on Lettuce's I/O thread; idempotency keys claimed with the admission, completed and abandoned
 * on the blocking store's records, completed ones kept for the store's retention; and, on a redis-server of the
 * test's own frozen with SIGSTOP, a call that fails closed naming its resource once its time is up.
 */
class RedisNonBlockingAdmissionsTest {

    static LettuceConnectionFactory factory;
    static SpringDataRedisScriptClient lettuce;
    static JedisPool pool;
    static JedisScriptClient jedis;
    static RedisHighWaterStore onLettuce;
    static RedisHighWaterStore onJedis;
    static NonBlockingAdmissionStore store;

    private final List<String> threads = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() {
        factory = SpringDataFactories.lettuce(TestServers.redis().host(), TestServers.redis().port());
        SpringDataFactories.warmUp(factory);
        lettuce = SpringDataRedisScriptClient.of(factory);
        pool = new JedisPool(TestServers.redis().host(), TestServers.redis().port());
        jedis = JedisScriptClient.of(pool);
        String prefix = "fgtest:" + UUID.randomUUID().toString().substring(0, 8) + ":";
        onLettuce = RedisHighWaterStore.of(lettuce, prefix, TokenBound.atMost(1));
        onJedis = RedisHighWaterStore.of(jedis, prefix, TokenBound.atMost(1));
        store = onLettuce.nonBlocking().orElseThrow();
    }

    @AfterAll
    static void stop() {
        lettuce.close();
        jedis.close();
        pool.close();
        SpringDataFactories.shutdown(factory);
    }

    private static Fence fence(String resource, long token) {
        return new Fence(ResourceName.of(resource), FencingToken.of(token));
    }

    private static String resource() {
        return "account:nb-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** {@code call} made on a thread of its own that is not let block, the threads it ran and answered on recorded. */
    private <T> T answer(Supplier<CompletionStage<T>> call) throws Exception {
        java.util.concurrent.CompletableFuture<CompletionStage<T>> made = new java.util.concurrent.CompletableFuture<>();
        Thread caller = new Thread(() -> {
            threads.add(Thread.currentThread().getName());
            made.complete(call.get().whenComplete((answer, failure) -> threads.add(Thread.currentThread().getName())));
        }, "caller-that-must-not-block");
        caller.start();
        caller.join(TimeUnit.SECONDS.toMillis(20));
        try {
            return made.get(20, TimeUnit.SECONDS).toCompletableFuture().get(20, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    @Test
    void onlyAClientWhoseCallsHoldNoThreadOffersNonBlockingAdmissions() {
        assertThat(lettuce.answersWithoutBlocking()).isTrue();
        assertThat(onLettuce.nonBlocking()).isPresent();
        assertThat(jedis.answersWithoutBlocking()).isFalse();
        assertThat(onJedis.nonBlocking()).as("Jedis runs each call on a thread of its own").isEmpty();
    }

    @Test
    void aNewerTokenClaimsTheSameContinuesAnOlderIsRefused() throws Exception {
        String resource = resource();
        Admission claimed = answer(() -> store.admit(fence(resource, 10)));
        assertThat(claimed.outcome()).isEqualTo(Admission.Outcome.CLAIMED);
        assertThat(answer(() -> store.admit(fence(resource, 10))).outcome()).isEqualTo(Admission.Outcome.CONTINUED);
        Admission stale = answer(() -> store.admit(fence(resource, 7)));
        assertThat(stale.admitted()).isFalse();
        assertThat(stale.highWater()).isEqualTo(FencingToken.of(10));
        assertThat(threads).contains("caller-that-must-not-block")
                .filteredOn(thread -> !thread.equals("caller-that-must-not-block"))
                .as("answered on Lettuce's I/O threads, no thread of the caller's waiting").isNotEmpty()
                .allSatisfy(thread -> assertThat(thread).startsWith("lettuce-"));
    }

    @Test
    void aReplayedNonceIsRefusedAndLeavesTheMark() throws Exception {
        String resource = resource();
        SignedAdmissionStore.Nonce nonce = new SignedAdmissionStore.Nonce("k1:" + UUID.randomUUID(),
                Instant.now().plusSeconds(30));
        Optional<Admission> first = answer(() -> store.admit(fence(resource, 5), nonce));
        assertThat(first).hasValueSatisfying(admission -> assertThat(admission.admitted()).isTrue());
        assertThat(answer(() -> store.admit(fence(resource, 6), nonce))).as("the nonce was used").isEmpty();
        assertThat(onJedis.admit(fence(resource, 5)).outcome()).as("a replay changes nothing")
                .isEqualTo(Admission.Outcome.CONTINUED);
        assertThat(onJedis.firstUse(nonce.value(), nonce.expires())).as("the blocking store sees the nonce").isFalse();
        assertThat(answer(() -> store.firstUse("k1:" + UUID.randomUUID(), nonce.expires()))).isTrue();
    }

    @Test
    void theBlockingAndTheNonBlockingStoreShareTheirMarks() throws Exception {
        String resource = resource();
        assertThat(onJedis.admit(fence(resource, 30)).admitted()).isTrue();
        Admission stale = answer(() -> store.admit(fence(resource, 29)));
        assertThat(stale.admitted()).as("the blocking store's mark refuses").isFalse();
        assertThat(stale.highWater()).isEqualTo(FencingToken.of(30));
        assertThat(answer(() -> store.admit(fence(resource, 31))).admitted()).isTrue();
        Admission older = onJedis.admit(fence(resource, 30));
        assertThat(older.admitted()).as("31 seen by the blocking store").isFalse();
        assertThat(older.highWater()).isEqualTo(FencingToken.of(31));
    }

    @Test
    void keysAreClaimedWithTheAdmissionOnTheBlockingStoresRecords() throws Exception {
        NonBlockingIdempotencyStore keys = store.idempotentAdmissions().orElseThrow();
        String resource = resource();
        ResourceName name = ResourceName.of(resource);

        ClaimedAdmission first = answer(() -> keys.admitClaiming(fence(resource, 5), null, "k-1", "fp-1"));
        assertThat(first.admission().outcome()).isEqualTo(Admission.Outcome.CLAIMED);
        assertThat(first.claim().kind()).isEqualTo(Claim.Kind.FIRST);
        assertThat(onJedis.claim(fence(resource, 5), "k-1", "fp-1").kind()).as("the blocking store sees the claim")
                .isEqualTo(Claim.Kind.IN_PROGRESS);
        assertThat(onJedis.claim(fence(resource, 5), "k-1", "fp-2").kind()).isEqualTo(Claim.Kind.OTHER_REQUEST);
        byte[] body = "{\"entry\":1}".getBytes(StandardCharsets.UTF_8);
        answer(() -> keys.complete(name, "k-1", new RecordedResponse(201, "application/json", body)));
        Claim completed = onJedis.claim(fence(resource, 6), "k-1", "fp-1");
        assertThat(completed.kind()).as("the blocking store answers from the recorded response")
                .isEqualTo(Claim.Kind.COMPLETED);
        assertThat(completed.response().status()).isEqualTo(201);
        assertThat(completed.response().contentType()).isEqualTo("application/json");
        assertThat(completed.response().body()).isEqualTo(body);

        assertThat(onJedis.admitClaiming(fence(resource, 6), null, "k-2", "fp-3").claim().kind())
                .isEqualTo(Claim.Kind.FIRST);
        ClaimedAdmission busy = answer(() -> keys.admitClaiming(fence(resource, 6), null, "k-2", "fp-3"));
        assertThat(busy.admission().outcome()).isEqualTo(Admission.Outcome.CONTINUED);
        assertThat(busy.claim().kind()).as("the blocking store's claim seen").isEqualTo(Claim.Kind.IN_PROGRESS);
        answer(() -> keys.abandon(name, "k-2"));
        assertThat(onJedis.claim(fence(resource, 6), "k-2", "fp-3").kind()).as("abandoned: the key is free")
                .isEqualTo(Claim.Kind.FIRST);
        answer(() -> keys.abandon(name, "k-1"));
        assertThat(onJedis.claim(fence(resource, 6), "k-1", "fp-1").kind()).as("a completed key stays")
                .isEqualTo(Claim.Kind.COMPLETED);

        ClaimedAdmission stale = answer(() -> keys.admitClaiming(fence(resource, 4), null, "k-3", "fp-4"));
        assertThat(stale.admission().admitted()).isFalse();
        assertThat(stale.claim()).isNull();
        assertThat(onJedis.claim(fence(resource, 6), "k-3", "fp-4").kind()).as("a stale request claims nothing")
                .isEqualTo(Claim.Kind.FIRST);

        SignedAdmissionStore.Nonce nonce = new SignedAdmissionStore.Nonce("k1:" + UUID.randomUUID(),
                Instant.now().plusSeconds(30));
        assertThat(answer(() -> keys.admitClaiming(fence(resource, 6), nonce, "k-4", "fp-5")).claim().kind())
                .isEqualTo(Claim.Kind.FIRST);
        ClaimedAdmission replayed = answer(() -> keys.admitClaiming(fence(resource, 7), nonce, "k-5", "fp-6"));
        assertThat(replayed.admission()).as("the nonce was used").isNull();
        assertThat(onJedis.admit(fence(resource, 6)).outcome()).as("a replay changes nothing")
                .isEqualTo(Admission.Outcome.CONTINUED);
        assertThat(onJedis.claim(fence(resource, 6), "k-5", "fp-6").kind()).isEqualTo(Claim.Kind.FIRST);

        assertThat(threads).contains("caller-that-must-not-block")
                .filteredOn(thread -> !thread.equals("caller-that-must-not-block"))
                .as("answered on Lettuce's I/O threads, no thread of the caller's waiting").isNotEmpty()
                .allSatisfy(thread -> assertThat(thread).startsWith("lettuce-"));
    }

    @Test
    void aCompletedKeyIsKeptForTheStoresRetention() throws Exception {
        Duration retention = Duration.ofMinutes(7);
        RedisHighWaterStore keeping = onLettuce.withIdempotencyRetention(retention);
        NonBlockingIdempotencyStore keys = keeping.nonBlocking().orElseThrow().idempotentAdmissions().orElseThrow();
        String resource = resource();
        assertThat(answer(() -> keys.admitClaiming(fence(resource, 5), null, "k-1", "fp-1")).claim().kind())
                .isEqualTo(Claim.Kind.FIRST);
        String record = RedisIdempotencyStore.nextTo(keeping).recordKey(ResourceName.of(resource), "k-1");
        try (Jedis redis = pool.getResource()) {
            assertThat(redis.pttl(record)).as("a claim is held for the in-progress timeout")
                    .isBetween(1L, RedisIdempotencyStore.IN_PROGRESS_TIMEOUT.toMillis());
            answer(() -> keys.complete(ResourceName.of(resource), "k-1", new RecordedResponse(200, null, new byte[0])));
            assertThat(redis.pttl(record)).as("a recorded response is kept for the store's retention")
                    .isBetween(retention.minusMinutes(1).toMillis(), retention.toMillis());
        }
    }

    @Test
    void aFrozenRedisFailsTheCallClosedNamingTheResource() throws Exception {
        try (RedisProcess redis = RedisProcess.start()) {
            LettuceConnectionFactory own = SpringDataFactories.lettuce("127.0.0.1", redis.port());
            SpringDataRedisScriptClient client = SpringDataRedisScriptClient.of(own);
            try {
                RedisHighWaterStore blocking = RedisHighWaterStore.of(client, "fgtest:frozen:", TokenBound.atMost(1));
                NonBlockingAdmissionStore frozen = blocking.nonBlocking().orElseThrow();
                assertThat(answer(() -> frozen.admit(fence("account:frozen", 3))).admitted()).isTrue();
                redis.freeze();
                try {
                    assertThatThrownBy(() -> answer(() -> frozen.admit(fence("account:frozen", 4))))
                            .isInstanceOf(FenceguardException.class)
                            .hasMessage("high-water store unavailable for 'account:frozen': no answer from Redis within "
                                    + RedisHighWaterStore.CALL_TIMEOUT.toMillis() + " ms");
                    assertThatThrownBy(() -> answer(() -> frozen.firstUse("k1:n", Instant.now().plusSeconds(5))))
                            .isInstanceOf(FenceguardException.class).hasMessageStartingWith("nonce store unavailable");
                    NonBlockingIdempotencyStore keys = frozen.idempotentAdmissions().orElseThrow();
                    String noAnswer = ": no answer from Redis within " + RedisHighWaterStore.CALL_TIMEOUT.toMillis()
                            + " ms";
                    assertThatThrownBy(() -> answer(() -> keys.admitClaiming(fence("account:frozen", 4), null, "k-1",
                            "fp-1"))).isInstanceOf(FenceguardException.class)
                            .hasMessage("high-water store unavailable for 'account:frozen'" + noAnswer);
                    assertThatThrownBy(() -> answer(() -> keys.complete(ResourceName.of("account:frozen"), "k-1",
                            new RecordedResponse(200, null, new byte[0])))).isInstanceOf(FenceguardException.class)
                            .hasMessage("idempotency store unavailable for 'account:frozen'" + noAnswer);
                    assertThatThrownBy(() -> answer(() -> keys.abandon(ResourceName.of("account:frozen"), "k-1")))
                            .isInstanceOf(FenceguardException.class)
                            .hasMessage("idempotency store unavailable for 'account:frozen'" + noAnswer);
                } finally {
                    redis.thaw();
                }
            } finally {
                client.close();
                SpringDataFactories.shutdown(own);
            }
        }
    }
}
