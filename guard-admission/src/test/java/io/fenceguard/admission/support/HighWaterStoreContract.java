package io.fenceguard.admission.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.Admission.Outcome;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.IdempotencyStore;
import io.fenceguard.admission.IdempotentAdmissionStore;
import io.fenceguard.admission.NonceStore;
import io.fenceguard.admission.SignedAdmissionStore;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.util.UUID;

/**
 * The admission rule every high-water store keeps, as assertions on a store: the store in memory is held to them
 * here, the JDBC store in fenceguard-jdbc (this module's test jar).
 */
public final class HighWaterStoreContract {

    private HighWaterStoreContract() {
    }

    public static Fence fence(ResourceName resource, long token) {
        return new Fence(resource, FencingToken.of(token));
    }

    public static void assertRule(HighWaterStore store) {
        ResourceName r = ResourceName.of("account:" + UUID.randomUUID().toString().substring(0, 8));
        Admission claimed = store.admit(fence(r, 5));
        assertThat(claimed.outcome()).isEqualTo(Outcome.CLAIMED);
        assertThat(claimed.presented()).isEqualTo(fence(r, 5));
        assertThat(store.admit(fence(r, 5)).outcome()).isEqualTo(Outcome.CONTINUED);
        Admission stale = store.admit(fence(r, 4));
        assertThat(stale.outcome()).isEqualTo(Outcome.STALE);
        assertThat(stale.presented()).isEqualTo(fence(r, 4));
        assertThat(stale.highWater()).isEqualTo(FencingToken.of(5));
        assertThat(store.admit(fence(r, Long.MAX_VALUE)).outcome()).isEqualTo(Outcome.CLAIMED);
        assertThat(store.admit(fence(r, Long.MAX_VALUE - 1)).outcome()).isEqualTo(Outcome.STALE);
        assertThat(store.admit(fence(r, 6)).highWater()).isEqualTo(FencingToken.of(Long.MAX_VALUE));
    }

    /**
     * A batch is decided as if its fences were admitted one after another: per resource the highest token raises
     * the mark, an equal one continues, an older one after a newer one (or below the stored mark) is stale.
     */
    public static void assertBatchRule(HighWaterStore store) {
        String run = UUID.randomUUID().toString().substring(0, 8);
        ResourceName r1 = ResourceName.of("account:" + run + "-1");
        ResourceName r2 = ResourceName.of("account:" + run + "-2");
        ResourceName r3 = ResourceName.of("account:" + run + "-3");
        assertThat(store.admitAll(java.util.List.of())).isEmpty();
        assertThat(store.admit(fence(r3, 50)).outcome()).isEqualTo(Outcome.CLAIMED);
        java.util.List<Admission> batch = store.admitAll(java.util.List.of(fence(r1, 10), fence(r2, 5), fence(r1, 20),
                fence(r1, 10), fence(r2, 5), fence(r1, 20), fence(r3, 40), fence(r3, 50), fence(r3, 60), fence(r3, 55)));
        assertThat(batch).extracting(Admission::outcome).containsExactly(Outcome.CLAIMED, Outcome.CLAIMED,
                Outcome.CLAIMED, Outcome.STALE, Outcome.CONTINUED, Outcome.CONTINUED, Outcome.STALE, Outcome.CONTINUED,
                Outcome.CLAIMED, Outcome.STALE);
        assertThat(batch).extracting(Admission::presented).containsExactly(fence(r1, 10), fence(r2, 5), fence(r1, 20),
                fence(r1, 10), fence(r2, 5), fence(r1, 20), fence(r3, 40), fence(r3, 50), fence(r3, 60), fence(r3, 55));
        assertThat(batch.get(3).highWater()).isEqualTo(FencingToken.of(20));
        assertThat(batch.get(6).highWater()).isEqualTo(FencingToken.of(50));
        assertThat(batch.get(9).highWater()).isEqualTo(FencingToken.of(60));
        assertThat(batch.get(0).replaced()).isEqualTo(new Admission.Replaced(null));
        assertThat(batch.get(2).replaced()).isEqualTo(new Admission.Replaced(FencingToken.of(10)));
        assertThat(batch.get(8).replaced()).isEqualTo(new Admission.Replaced(FencingToken.of(50)));
        assertThat(store.admit(fence(r1, 20)).outcome()).as("the batch's highest is the mark").isEqualTo(Outcome.CONTINUED);
        assertThat(store.admit(fence(r1, 19)).outcome()).isEqualTo(Outcome.STALE);
        assertThat(store.admit(fence(r2, 5)).outcome()).isEqualTo(Outcome.CONTINUED);
        assertThat(store.admit(fence(r3, 60)).outcome()).isEqualTo(Outcome.CONTINUED);
        assertThat(store.admitAll(java.util.List.of(fence(r3, 59), fence(r3, Long.MAX_VALUE))))
                .extracting(Admission::outcome).containsExactly(Outcome.STALE, Outcome.CLAIMED);
    }

    /** The operator's compare-and-set: only from the expected mark, lower or removed, and the rule holds after. */
    public static void assertReset(HighWaterStore store) {
        ResourceName r = ResourceName.of("account:" + UUID.randomUUID().toString().substring(0, 8));
        FencingToken max = FencingToken.of(Long.MAX_VALUE);
        assertThat(store.reset(r, FencingToken.of(1), FencingToken.of(2))).as("no mark yet, 1 expected").isFalse();
        assertThat(store.reset(r, null, FencingToken.of(3))).as("no mark expected").isTrue();
        assertThat(store.admit(fence(r, 2)).outcome()).isEqualTo(Outcome.STALE);
        assertThat(store.admit(fence(r, Long.MAX_VALUE)).outcome()).isEqualTo(Outcome.CLAIMED);
        assertThat(store.reset(r, FencingToken.of(3), FencingToken.of(10))).as("mark moved on").isFalse();
        assertThat(store.admit(fence(r, 10)).outcome()).as("locked out until reset").isEqualTo(Outcome.STALE);
        assertThat(store.reset(r, max, FencingToken.of(10))).isTrue();
        assertThat(store.reset(r, max, FencingToken.of(10))).as("applied once").isFalse();
        assertThat(store.admit(fence(r, 9)).outcome()).isEqualTo(Outcome.STALE);
        assertThat(store.admit(fence(r, 10)).outcome()).isEqualTo(Outcome.CONTINUED);
        assertThat(store.admit(fence(r, 11)).outcome()).isEqualTo(Outcome.CLAIMED);
        assertThat(store.reset(r, FencingToken.of(11), null)).isTrue();
        assertThat(store.admit(fence(r, 1)).outcome()).as("no mark").isEqualTo(Outcome.CLAIMED);
    }

    /**
     * An admission with an idempotency key's claim: the key is claimed only when the token is admitted (a stale
     * request leaves it free), a replayed nonce decides nothing, and later requests with the key are told what
     * became of the first (in progress, another request's key, or its recorded response).
     */
    public static void assertAdmitClaiming(IdempotentAdmissionStore store) {
        ResourceName r = ResourceName.of("acct:claiming-" + UUID.randomUUID().toString().substring(0, 8));
        String key = "key-" + UUID.randomUUID();
        java.time.Instant expires = java.time.Instant.now().plusSeconds(30);
        assertThat(store.admit(fence(r, 50)).outcome()).isEqualTo(Outcome.CLAIMED);

        IdempotentAdmissionStore.ClaimedAdmission stale = store.admitClaiming(fence(r, 49), null, key, "fp-1");
        assertThat(stale.admission().outcome()).isEqualTo(Outcome.STALE);
        assertThat(stale.claim()).isNull();

        String nonce = "k1:" + UUID.randomUUID();
        IdempotentAdmissionStore.ClaimedAdmission first = store.admitClaiming(fence(r, 51),
                new SignedAdmissionStore.Nonce(nonce, expires), key, "fp-1");
        assertThat(first.admission().outcome()).isEqualTo(Outcome.CLAIMED);
        assertThat(first.claim()).as("the stale request left the key free").isEqualTo(IdempotencyStore.Claim.first());

        IdempotentAdmissionStore.ClaimedAdmission replayed = store.admitClaiming(fence(r, 52),
                new SignedAdmissionStore.Nonce(nonce, expires), "key-" + UUID.randomUUID(), "fp-9");
        assertThat(replayed.admission()).as("a used nonce: nothing decided").isNull();
        assertThat(store.admit(fence(r, 51)).outcome()).as("the replay raised no mark").isEqualTo(Outcome.CONTINUED);

        assertThat(store.admitClaiming(fence(r, 51), null, key, "fp-1").claim().kind())
                .isEqualTo(IdempotencyStore.Claim.Kind.IN_PROGRESS);
        assertThat(store.admitClaiming(fence(r, 51), new SignedAdmissionStore.Nonce("k1:" + UUID.randomUUID(), expires),
                key, "fp-2").claim().kind()).isEqualTo(IdempotencyStore.Claim.Kind.OTHER_REQUEST);
        store.complete(r, key, new IdempotencyStore.RecordedResponse(201, "text/plain",
                new byte[] {'o', 'k'}));
        IdempotentAdmissionStore.ClaimedAdmission retried = store.admitClaiming(fence(r, 51),
                new SignedAdmissionStore.Nonce("k1:" + UUID.randomUUID(), expires), key, "fp-1");
        assertThat(retried.admission().outcome()).isEqualTo(Outcome.CONTINUED);
        assertThat(retried.claim().kind()).isEqualTo(IdempotencyStore.Claim.Kind.COMPLETED);
        assertThat(retried.claim().response().status()).isEqualTo(201);
        assertThat(retried.claim().response().body()).isEqualTo(new byte[] {'o', 'k'});
    }

    /** The nonce cache in the store's backend: one first use, also when many race. */
    public static void assertNonce(NonceStore store) throws Exception {
        String nonce = "k1:" + UUID.randomUUID();
        java.time.Instant expires = java.time.Instant.now().plusSeconds(30);
        var pool = java.util.concurrent.Executors.newFixedThreadPool(8);
        try {
            var answers = new java.util.ArrayList<java.util.concurrent.Future<Boolean>>();
            for (int i = 0; i < 16; i++) {
                answers.add(pool.submit(() -> store.firstUse(nonce, expires)));
            }
            int first = 0;
            for (var answer : answers) {
                first += answer.get() ? 1 : 0;
            }
            assertThat(first).as("first uses of one nonce").isOne();
        } finally {
            pool.shutdown();
        }
        assertThat(store.firstUse(nonce + "x", expires)).isTrue();
        String longest = (nonce + "-").repeat(10).substring(0, 200);
        assertThat(store.firstUse(longest, expires)).as("a nonce of 200 characters, the most the SPI allows").isTrue();
        assertThat(store.firstUse(longest, expires)).isFalse();
    }

    /**
     * The nonce and the admission in one call: a fresh nonce admits as {@code admit} does, a used one (also by
     * {@code firstUse}) answers empty and changes no mark, a stale token's nonce stays used, and of many
     * concurrent uses of one nonce exactly one is admitted.
     */
    public static <S extends SignedAdmissionStore & NonceStore> void assertSigned(S store) throws Exception {
        ResourceName r = ResourceName.of("account:" + UUID.randomUUID().toString().substring(0, 8));
        java.time.Instant expires = java.time.Instant.now().plusSeconds(30);
        String first = "k1:" + UUID.randomUUID();
        Admission claimed = store.admit(fence(r, 5), first, expires).orElseThrow();
        assertThat(claimed.outcome()).isEqualTo(Outcome.CLAIMED);
        assertThat(claimed.presented()).isEqualTo(fence(r, 5));
        assertThat(store.admit(fence(r, 5), "k1:" + UUID.randomUUID(), expires).orElseThrow().outcome())
                .isEqualTo(Outcome.CONTINUED);
        String staleNonce = "k1:" + UUID.randomUUID();
        Admission stale = store.admit(fence(r, 4), staleNonce, expires).orElseThrow();
        assertThat(stale.outcome()).isEqualTo(Outcome.STALE);
        assertThat(stale.highWater()).isEqualTo(FencingToken.of(5));

        assertThat(store.admit(fence(r, 6), first, expires)).as("a replay").isEmpty();
        assertThat(store.admit(fence(r, 7), staleNonce, expires)).as("a stale token's nonce, replayed").isEmpty();
        assertThat(store.firstUse(first, expires)).as("the nonce store saw it").isFalse();
        assertThat(store.admit(fence(r, 5)).outcome()).as("replays raised no mark").isEqualTo(Outcome.CONTINUED);
        String usedFirst = "k1:" + UUID.randomUUID();
        assertThat(store.firstUse(usedFirst, expires)).isTrue();
        ResourceName untouched = ResourceName.of(r.value() + "-u");
        assertThat(store.admit(fence(untouched, 9), usedFirst, expires)).isEmpty();
        assertThat(store.admit(fence(untouched, 2)).outcome()).as("no mark was made").isEqualTo(Outcome.CLAIMED);

        ResourceName raced = ResourceName.of(r.value() + "-r");
        String shared = "k1:" + UUID.randomUUID();
        var pool = java.util.concurrent.Executors.newFixedThreadPool(8);
        try {
            var answers = new java.util.ArrayList<java.util.concurrent.Future<java.util.Optional<Admission>>>();
            for (int i = 1; i <= 16; i++) {
                long token = i;
                answers.add(pool.submit(() -> store.admit(fence(raced, token), shared, expires)));
            }
            java.util.List<Admission> admitted = new java.util.ArrayList<>();
            for (var answer : answers) {
                answer.get().ifPresent(admitted::add);
            }
            assertThat(admitted).as("admissions with one nonce").hasSize(1);
            assertThat(admitted.get(0).outcome()).isEqualTo(Outcome.CLAIMED);
            assertThat(store.admit(admitted.get(0).presented()).outcome()).as("only the admitted token's mark")
                    .isEqualTo(Outcome.CONTINUED);
        } finally {
            pool.shutdown();
        }
    }
}
