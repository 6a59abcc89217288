package io.fenceguard.spring.boot.autoconfigure.observation.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.IdempotencyStore;
import io.fenceguard.admission.IdempotentAdmissionStore;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.admission.SignedAdmissionStore.Nonce;
import io.fenceguard.core.Fence;
import io.fenceguard.core.ResourceName;
import io.fenceguard.spring.observation.FenceguardActivity;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The recording of a store's answers changes no round trip: a store that decides a nonce, a mark and a key's claim
 * in one call (as the Redis store does in one script) is asked once, and every answer is noted for the endpoint.
 */
class RecordingHighWaterStoreTest {

    @Test
    void combinedAdmissionsArePassedOnAsOneCallAndNoted() {
        OneCallStore store = new OneCallStore();
        FenceguardActivity activity = new FenceguardActivity(10);
        RecordingHighWaterStore recorded = new RecordingHighWaterStore(store, activity);
        Instant expires = Instant.now().plusSeconds(60);

        Optional<Admission> signed = recorded.admit(Fence.of("account:1", "5"), new Nonce("n-1", expires));
        assertThat(signed).hasValueSatisfying(a -> assertThat(a.admitted()).isTrue());
        assertThat(store.calls).containsExactly("nonce+mark");

        IdempotentAdmissionStore.ClaimedAdmission claimed = recorded.admitClaiming(Fence.of("account:2", "7"),
                new Nonce("n-2", expires), "key-1", "fingerprint");
        assertThat(claimed.claim().kind()).isEqualTo(IdempotencyStore.Claim.Kind.FIRST);
        assertThat(store.calls).containsExactly("nonce+mark", "nonce+mark+claim");

        assertThat(recorded.admit(Fence.of("account:1", "5"), new Nonce("n-1", expires))).as("a replay").isEmpty();
        assertThat(store.calls).hasSize(3);

        assertThat(activity.highWaterMarks()).extracting(FenceguardActivity.HighWater::resource)
                .containsExactly("account:1", "account:2");
        assertThat(activity.highWaterMarks()).extracting(FenceguardActivity.HighWater::highWater)
                .containsExactly(5L, 7L);
    }

    @Test
    void nonBlockingKeyCallsAreOfferedThroughTheDecoratorAndTheirAdmissionsNoted() throws Exception {
        OneCallStore store = new OneCallStore();
        FenceguardActivity activity = new FenceguardActivity(10);
        RecordingHighWaterStore recorded = new RecordingHighWaterStore(store, activity);
        io.fenceguard.admission.NonBlockingIdempotencyStore keys = recorded.nonBlocking()
                .flatMap(io.fenceguard.admission.NonBlockingAdmissionStore::idempotentAdmissions).orElseThrow();

        IdempotentAdmissionStore.ClaimedAdmission claimed = keys.admitClaiming(Fence.of("account:3", "9"),
                new Nonce("n-3", Instant.now().plusSeconds(60)), "key-3", "fingerprint").toCompletableFuture().get();
        assertThat(claimed.claim().kind()).isEqualTo(IdempotencyStore.Claim.Kind.FIRST);
        assertThat(store.calls).containsExactly("async nonce+mark+claim");
        keys.complete(ResourceName.of("account:3"), "key-3", new IdempotencyStore.RecordedResponse(201, null, new byte[0]))
                .toCompletableFuture().get();
        assertThat(store.claim(Fence.of("account:3", "9"), "key-3", "fingerprint").kind())
                .as("recorded in the store behind").isEqualTo(IdempotencyStore.Claim.Kind.COMPLETED);
        assertThat(activity.highWaterMarks()).extracting(FenceguardActivity.HighWater::resource)
                .containsExactly("account:3");
    }

    /** The in-memory store behind one call per combined decision, as the Redis store's scripts do. */
    static final class OneCallStore implements IdempotentAdmissionStore {

        final List<String> calls = new CopyOnWriteArrayList<>();
        private final InMemoryHighWaterStore memory = InMemoryHighWaterStore.create();

        @Override
        public Admission admit(Fence presented) {
            calls.add("mark");
            return memory.admit(presented);
        }

        @Override
        public Optional<Admission> admit(Fence presented, String nonce, Instant expires) {
            calls.add("nonce+mark");
            return memory.firstUse(nonce, expires) ? Optional.of(memory.admit(presented)) : Optional.empty();
        }

        @Override
        public ClaimedAdmission admitClaiming(Fence presented, Nonce nonce, String key, String fingerprint) {
            calls.add("nonce+mark+claim");
            return decideClaiming(presented, nonce, key, fingerprint);
        }

        private ClaimedAdmission decideClaiming(Fence presented, Nonce nonce, String key, String fingerprint) {
            if (!memory.firstUse(nonce.value(), nonce.expires())) {
                return ClaimedAdmission.replayed();
            }
            Admission admission = memory.admit(presented);
            return new ClaimedAdmission(admission, admission.admitted() ? memory.claim(presented, key, fingerprint) : null);
        }

        /** The same decisions as non-blocking calls (completed at once), as the Redis store offers them on Lettuce. */
        @Override
        public Optional<io.fenceguard.admission.NonBlockingAdmissionStore> nonBlocking() {
            OneCallStore blocking = this;
            return Optional.of(new io.fenceguard.admission.NonBlockingAdmissionStore() {
                @Override
                public java.util.concurrent.CompletionStage<Admission> admit(Fence presented) {
                    return java.util.concurrent.CompletableFuture.completedFuture(memory.admit(presented));
                }

                @Override
                public java.util.concurrent.CompletionStage<Optional<Admission>> admit(Fence presented, Nonce nonce) {
                    return java.util.concurrent.CompletableFuture.completedFuture(
                            memory.firstUse(nonce.value(), nonce.expires()) ? Optional.of(memory.admit(presented))
                                    : Optional.empty());
                }

                @Override
                public java.util.concurrent.CompletionStage<Boolean> firstUse(String nonce, Instant expires) {
                    return java.util.concurrent.CompletableFuture.completedFuture(memory.firstUse(nonce, expires));
                }

                @Override
                public Optional<io.fenceguard.admission.NonBlockingIdempotencyStore> idempotentAdmissions() {
                    return Optional.of(new io.fenceguard.admission.NonBlockingIdempotencyStore() {
                        @Override
                        public java.util.concurrent.CompletionStage<ClaimedAdmission> admitClaiming(Fence presented,
                                Nonce nonce, String key, String fingerprint) {
                            ClaimedAdmission answer = blocking.decideClaiming(presented, nonce, key, fingerprint);
                            calls.add("async nonce+mark+claim");
                            return java.util.concurrent.CompletableFuture.completedFuture(answer);
                        }

                        @Override
                        public java.util.concurrent.CompletionStage<Void> complete(ResourceName resource, String key,
                                RecordedResponse response) {
                            blocking.complete(resource, key, response);
                            return java.util.concurrent.CompletableFuture.completedFuture(null);
                        }

                        @Override
                        public java.util.concurrent.CompletionStage<Void> abandon(ResourceName resource, String key) {
                            blocking.abandon(resource, key);
                            return java.util.concurrent.CompletableFuture.completedFuture(null);
                        }
                    });
                }
            });
        }

        @Override
        public Claim claim(Fence presented, String key, String fingerprint) {
            calls.add("claim");
            return memory.claim(presented, key, fingerprint);
        }

        @Override
        public void complete(ResourceName resource, String key, RecordedResponse response) {
            memory.complete(resource, key, response);
        }

        @Override
        public void abandon(ResourceName resource, String key) {
            memory.abandon(resource, key);
        }
    }
}
