package io.fenceguard.redis;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.Admission.Outcome;
import io.fenceguard.admission.FenceHeader;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.admission.TokenBound;
import io.fenceguard.admission.Verdict;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.test.support.TestServers;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * The HTTP filter's high-water store on a real Redis, as two resource-server instances share it: each
 * instance has its own client and store, and both see one mark per resource. (Moved here from
 * fenceguard-http-filter, which cannot depend on this module: this one depends on it.)
 */
class RedisHighWaterStoreTest {

    static RedissonClient clientA;
    static RedissonClient clientB;
    static String prefix;
    static RedisHighWaterStore a;
    static RedisHighWaterStore b;

    @BeforeAll
    static void start() {
        clientA = client();
        clientB = client();
        prefix = "fgtest:" + UUID.randomUUID().toString().substring(0, 8) + ":";
        // The admission rule with small tokens: a floor of 1 (the loss floor is tested in RedisHighWaterStoreLossTest).
        a = RedisHighWaterStore.of(RedissonScriptClient.of(clientA), prefix, TokenBound.atMost(1));
        b = RedisHighWaterStore.of(RedissonScriptClient.of(clientB), prefix, TokenBound.atMost(1));
    }

    @AfterAll
    static void stop() {
        clientA.shutdown();
        clientB.shutdown();
    }

    static RedissonClient client() {
        Config config = new Config();
        config.useSingleServer().setAddress(TestServers.redis().uri()).setConnectionPoolSize(16)
                .setConnectionMinimumIdleSize(2).setTimeout(2_000);
        return Redisson.create(config);
    }

    static Fence fence(String resource, long token) {
        return new Fence(ResourceName.of(resource), FencingToken.of(token));
    }

    static String mark(String resource) {
        return clientA.<String>getBucket(a.key(ResourceName.of(resource)), StringCodec.INSTANCE).get();
    }

    @Test
    void admissionRule() {
        String r = "account:" + UUID.randomUUID().toString().substring(0, 8);
        Admission claimed = a.admit(fence(r, 5));
        assertThat(claimed).as("the first mark: it replaced none").isEqualTo(new Admission(fence(r, 5), FencingToken.of(5),
                Outcome.CLAIMED, new Admission.Replaced(null)));
        assertThat(a.admit(fence(r, 7)).replaced()).isEqualTo(new Admission.Replaced(FencingToken.of(5)));
        assertThat(a.reset(ResourceName.of(r), FencingToken.of(7), FencingToken.of(5))).isTrue();
        assertThat(a.admit(fence(r, 5)).outcome()).isEqualTo(Outcome.CONTINUED);
        Admission stale = a.admit(fence(r, 4));
        assertThat(stale.outcome()).isEqualTo(Outcome.STALE);
        assertThat(stale.presented()).isEqualTo(fence(r, 4));
        assertThat(stale.highWater()).isEqualTo(FencingToken.of(5));
        assertThat(a.admit(fence(r, Long.MAX_VALUE)).outcome()).isEqualTo(Outcome.CLAIMED);
        assertThat(a.admit(fence(r, Long.MAX_VALUE - 1)).outcome()).isEqualTo(Outcome.STALE);
        assertThat(a.admit(fence(r, 6)).highWater()).isEqualTo(FencingToken.of(Long.MAX_VALUE));
    }

    /**
     * A batch in one script, decided as if admitted one after another: per resource the highest token raises the
     * mark, an equal one continues, an older one after a newer one or below the mark is stale; the other instance
     * sees the marks.
     */
    @Test
    void aBatchIsDecidedInOrderInOneScript() {
        String run = UUID.randomUUID().toString().substring(0, 8);
        String r1 = "account:" + run + "-1";
        String r2 = "account:" + run + "-2";
        String r3 = "account:" + run + "-3";
        assertThat(a.admitAll(List.of())).isEmpty();
        assertThat(a.admit(fence(r3, 50)).outcome()).isEqualTo(Outcome.CLAIMED);
        List<Admission> batch = a.admitAll(List.of(fence(r1, 10), fence(r2, 5), fence(r1, 20), fence(r1, 10),
                fence(r2, 5), fence(r1, 20), fence(r3, 40), fence(r3, 50), fence(r3, 60), fence(r3, 55)));
        assertThat(batch).extracting(Admission::outcome).containsExactly(Outcome.CLAIMED, Outcome.CLAIMED,
                Outcome.CLAIMED, Outcome.STALE, Outcome.CONTINUED, Outcome.CONTINUED, Outcome.STALE, Outcome.CONTINUED,
                Outcome.CLAIMED, Outcome.STALE);
        assertThat(batch.get(3).highWater()).isEqualTo(FencingToken.of(20));
        assertThat(batch.get(9).highWater()).isEqualTo(FencingToken.of(60));
        assertThat(batch.get(0).replaced()).isEqualTo(new Admission.Replaced(null));
        assertThat(batch.get(2).replaced()).isEqualTo(new Admission.Replaced(FencingToken.of(10)));
        assertThat(batch.get(8).replaced()).isEqualTo(new Admission.Replaced(FencingToken.of(50)));
        assertThat(mark(r1)).isEqualTo("20");
        assertThat(mark(r2)).isEqualTo("5");
        assertThat(mark(r3)).isEqualTo("60");
        assertThat(b.admit(fence(r1, 19)).outcome()).isEqualTo(Outcome.STALE);
        assertThat(b.admitAll(List.of(fence(r1, Long.MAX_VALUE), fence(r2, 4), fence(r3, 60))))
                .extracting(Admission::outcome).containsExactly(Outcome.CLAIMED, Outcome.STALE, Outcome.CONTINUED);
        assertThat(mark(r1)).isEqualTo(Long.toString(Long.MAX_VALUE));
    }

    /**
     * Request-signed admissions of one fence that arrived together, in one script: each nonce counts once (a nonce
     * used before, on the other instance, or twice in the group is a replay), the fence is admitted once (the
     * first fresh nonce claims, the other fresh ones continue), nonces of a stale token are still recorded, and
     * a group of replays changes no mark.
     */
    @Test
    void requestSignedAdmissionsArrivingTogetherAreDecidedInOneScript() {
        String run = UUID.randomUUID().toString().substring(0, 8);
        String r = "account:" + run;
        java.time.Instant expires = java.time.Instant.now().plusSeconds(30);
        assertThat(b.firstUse("k1:" + run + "-used", expires)).isTrue();
        List<java.util.Optional<Admission>> answers = a.admitEach(fence(r, 5), List.of(
                nonce(run + "-used", expires), nonce(run + "-1", expires), nonce(run + "-2", expires),
                nonce(run + "-1", expires), nonce(run + "-3", expires)));
        assertThat(answers).extracting(answer -> answer.map(Admission::outcome).orElse(null))
                .containsExactly(null, Outcome.CLAIMED, Outcome.CONTINUED, null, Outcome.CONTINUED);
        assertThat(answers.get(1).orElseThrow().replaced()).isEqualTo(new Admission.Replaced(null));
        assertThat(mark(r)).isEqualTo("5");
        assertThat(b.admit(fence(r, 5), "k1:" + run + "-2", expires)).as("a nonce of the group, again").isEmpty();

        List<java.util.Optional<Admission>> stale = b.admitEach(fence(r, 4), List.of(nonce(run + "-4", expires),
                nonce(run + "-5", expires)));
        assertThat(stale).extracting(answer -> answer.orElseThrow().outcome()).containsExactly(Outcome.STALE, Outcome.STALE);
        assertThat(a.firstUse("k1:" + run + "-5", expires)).as("a stale token's nonce is recorded").isFalse();

        List<java.util.Optional<Admission>> replays = a.admitEach(fence(r, 9), List.of(nonce(run + "-1", expires),
                nonce(run + "-4", expires)));
        assertThat(replays).allMatch(java.util.Optional::isEmpty);
        assertThat(mark(r)).as("replays change no mark").isEqualTo("5");
        assertThat(a.admitEach(fence(r, 9), List.of())).isEmpty();
        assertThat(a.admitEach(fence(r, 9), List.of(nonce(run + "-6", expires))))
                .extracting(answer -> answer.orElseThrow().outcome()).containsExactly(Outcome.CLAIMED);
    }

    private static io.fenceguard.admission.SignedAdmissionStore.Nonce nonce(String value, java.time.Instant expires) {
        return new io.fenceguard.admission.SignedAdmissionStore.Nonce("k1:" + value, expires);
    }

    @Test
    void aNonceIsUsedOnceAcrossInstancesAndExpires() throws Exception {
        String nonce = "k1:" + UUID.randomUUID();
        java.time.Instant expires = java.time.Instant.now().plusMillis(400);
        assertThat(a.firstUse(nonce, expires)).isTrue();
        assertThat(b.firstUse(nonce, expires)).isFalse();
        assertThat(a.firstUse(nonce, expires)).isFalse();
        assertThat(clientA.getBucket(prefix + "{fg-hw}:nonce:" + nonce, StringCodec.INSTANCE).remainTimeToLive())
                .isBetween(1L, 400L);
        Thread.sleep(600);
        assertThat(b.firstUse(nonce, java.time.Instant.now().plusSeconds(5))).as("expired with its signature").isTrue();
    }

    @Test
    void resetIsACompareAndSetSeenByBothInstances() {
        String r = "account:" + UUID.randomUUID().toString().substring(0, 8);
        FencingToken max = FencingToken.of(Long.MAX_VALUE);
        assertThat(a.reset(ResourceName.of(r), FencingToken.of(1), FencingToken.of(2))).isFalse();
        assertThat(a.admit(fence(r, Long.MAX_VALUE)).outcome()).isEqualTo(Outcome.CLAIMED);
        assertThat(b.admit(fence(r, 10)).outcome()).isEqualTo(Outcome.STALE);
        assertThat(b.reset(ResourceName.of(r), max, FencingToken.of(10))).isTrue();
        assertThat(a.reset(ResourceName.of(r), max, FencingToken.of(10))).as("applied once").isFalse();
        assertThat(a.admit(fence(r, 9)).outcome()).isEqualTo(Outcome.STALE);
        assertThat(a.admit(fence(r, 10)).outcome()).isEqualTo(Outcome.CONTINUED);
        assertThat(mark(r)).isEqualTo("10");
        assertThat(a.reset(ResourceName.of(r), FencingToken.of(10), null)).isTrue();
        assertThat(mark(r)).isNull();
    }

    @Test
    void olderTokenAfterNewerIsRefusedOnEitherInstanceAndEqualTokenContinues() {
        assertThat(b.admit(fence("account:9", 7_000)).admitted()).isTrue();
        assertThat(a.admit(fence("account:9", 7_001)).outcome()).isEqualTo(Outcome.CLAIMED);
        assertThat(b.admit(fence("account:9", 7_000)).outcome()).isEqualTo(Outcome.STALE);
        assertThat(a.admit(fence("account:9", 7_000)).highWater()).isEqualTo(FencingToken.of(7_001));
        assertThat(b.admit(fence("account:9", 7_001)).outcome()).isEqualTo(Outcome.CONTINUED);
        assertThat(mark("account:9")).isEqualTo("7001");
    }

    @Test
    void tokensBeyondDoublePrecisionAreComparedExactly() {
        long big = (1L << 60) + 1;
        assertThat(a.admit(fence("account:big", big)).outcome()).isEqualTo(Outcome.CLAIMED);
        assertThat(b.admit(fence("account:big", big - 1)).outcome()).isEqualTo(Outcome.STALE);
        assertThat(b.admit(fence("account:big", big)).outcome()).isEqualTo(Outcome.CONTINUED);
        assertThat(mark("account:big")).isEqualTo(Long.toString(big));
    }

    @Test
    void filterDecisionOnTheRedisStore() {
        InboundFence fenceA = InboundFence.of(List.of(FencedRoute.of(Set.of("PUT"), "/accounts/{id}", "account:{id}")),
                a, SigningKeys.none());
        InboundFence fenceB = InboundFence.of(List.of(FencedRoute.of(Set.of("PUT"), "/accounts/{id}", "account:{id}")),
                b, SigningKeys.none());
        String newer = FenceHeader.of(fence("account:gate", 20)).value();
        String older = FenceHeader.of(fence("account:gate", 19)).value();
        assertThat(fenceA.check("PUT", "/accounts/gate", List.of(newer)).admission()).isPresent();
        Verdict refused = fenceB.check("PUT", "/accounts/gate", List.of(older));
        assertThat(refused.problem()).hasValueSatisfying(problem -> {
            assertThat(problem.status()).isEqualTo(409);
            assertThat(problem.type()).isEqualTo("urn:fenceguard:stale-token");
            assertThat(problem.highWater()).contains(FencingToken.of(20));
        });
    }

    /** One admission: token, which store, when sent and answered (nanoTime), outcome. */
    record Entry(long token, long sent, long answered, Admission admission) {
    }

    @Test
    void concurrentAdmissionsAcrossInstancesAreMonotonic() throws Exception {
        String resource = "account:race";
        ConcurrentLinkedQueue<Entry> log = new ConcurrentLinkedQueue<>();
        AtomicInteger sentSoFar = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                futures.add(pool.submit(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < 60; i++) {
                        long token = 50_000 + sentSoFar.getAndIncrement() / 2 + random.nextInt(12);
                        RedisHighWaterStore store = random.nextBoolean() ? a : b;
                        long sent = System.nanoTime();
                        Admission admission = store.admit(fence(resource, token));
                        log.add(new Entry(token, sent, System.nanoTime(), admission));
                    }
                }));
            }
            for (Future<?> future : futures) {
                future.get();
            }
        } finally {
            pool.shutdown();
        }
        long pairs = 0;
        for (Entry earlier : log) {
            if (!earlier.admission().admitted()) {
                assertThat(earlier.admission().highWater().value()).as("mark above the stale token: %s", earlier)
                        .isGreaterThan(earlier.token());
                continue;
            }
            for (Entry later : log) {
                if (later.sent() > earlier.answered()) {
                    pairs++;
                    if (later.token() < earlier.token()) {
                        assertThat(later.admission().outcome()).as("token %d sent after %d was admitted",
                                later.token(), earlier.token()).isEqualTo(Outcome.STALE);
                    }
                }
            }
        }
        assertThat(pairs).as("ordered pairs compared").isGreaterThan(1_000);
        assertThat(log).anyMatch(e -> e.admission().outcome() == Outcome.STALE);
        long max = log.stream().mapToLong(Entry::token).max().orElseThrow();
        assertThat(mark(resource)).isEqualTo(Long.toString(max));
    }
}
