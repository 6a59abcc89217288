package io.fenceguard.admission;

import static io.fenceguard.admission.support.HighWaterStoreContract.assertBatchRule;
import static io.fenceguard.admission.support.HighWaterStoreContract.assertNonce;
import static io.fenceguard.admission.support.HighWaterStoreContract.assertReset;
import static io.fenceguard.admission.support.HighWaterStoreContract.assertRule;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The admission rule on the store in memory. (The JDBC and Redis stores are tested in their own modules.) */
class InMemoryHighWaterStoreTest {

    @Test
    void inMemory() throws Exception {
        assertRule(InMemoryHighWaterStore.create());
        assertBatchRule(InMemoryHighWaterStore.create());
        assertReset(InMemoryHighWaterStore.create());
        assertNonce(InMemoryHighWaterStore.create());
    }

    /**
     * The in-memory nonce cache forgets a nonce once it expired (its memory stays bounded by the signatures'
     * lifetime) and only then: a nonce still within its lifetime stays used, among many that expired.
     */
    @Test
    void inMemoryNoncesAreForgottenWhenTheyExpireAndNotBefore() {
        InMemoryHighWaterStore store = InMemoryHighWaterStore.create();
        java.time.Instant past = java.time.Instant.now().minusSeconds(1);
        java.time.Instant future = java.time.Instant.now().plusSeconds(60);
        for (int i = 0; i < 10_000; i++) {
            assertThat(store.firstUse("expired-" + i, past)).isTrue();
        }
        assertThat(store.firstUse("live", future)).as("a new nonce").isTrue();
        assertThat(store.firstUse("live", future)).as("a live nonce used again").isFalse();
        for (int i = 0; i < 10_000; i += 999) {
            assertThat(store.firstUse("expired-" + i, future)).as("an expired nonce, forgotten").isTrue();
        }
        assertThat(store.firstUse("live", future)).as("a live nonce among forgotten ones").isFalse();
    }
}
