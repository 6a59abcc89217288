package io.fenceguard.spring.boot.autoconfigure.observation.internal;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.IdempotencyStore;
import io.fenceguard.admission.IdempotentAdmissionStore;
import io.fenceguard.core.Fence;
import io.fenceguard.spring.observation.FenceguardActivity;
import java.util.Locale;

/**
 * A {@link HighWaterStore} that notes each answer in {@link FenceguardActivity}; the decision is the store's.
 * Loaded only with fenceguard-http-filter.
 */
public final class RecordingHighWaterStore implements IdempotentAdmissionStore {

    private final HighWaterStore store;
    private final FenceguardActivity activity;

    public RecordingHighWaterStore(HighWaterStore store, FenceguardActivity activity) {
        this.store = store;
        this.activity = activity;
    }

    @Override
    public Admission admit(Fence presented) {
        Admission admission = store.admit(presented);
        activity.sawHighWater(presented, admission.highWater().value(), admission.outcome().name().toLowerCase(Locale.ROOT));
        return admission;
    }

    /** Passes a batch on (in one round trip when the store decides so), noting each answer. */
    @Override
    public java.util.List<Admission> admitAll(java.util.List<Fence> presented) {
        java.util.List<Admission> admissions = store.admitAll(presented);
        for (Admission admission : admissions) {
            activity.sawHighWater(admission.presented(), admission.highWater().value(),
                    admission.outcome().name().toLowerCase(Locale.ROOT));
        }
        return admissions;
    }

    /** Passes a request-signed admission on (in one call when the store decides so), noting its answer. */
    @Override
    public java.util.Optional<Admission> admit(Fence presented, String nonce, java.time.Instant expires) {
        return admit(presented, new Nonce(nonce, expires));
    }

    /** Passes a request-signed admission on with its nonce's creation time, noting its answer. */
    @Override
    public java.util.Optional<Admission> admit(Fence presented, Nonce nonce) {
        if (!(store instanceof io.fenceguard.admission.SignedAdmissionStore combined)) {
            if (!(store.backend() instanceof io.fenceguard.admission.NonceStore nonces)) {
                throw new IllegalStateException(store + " keeps no nonces");
            }
            return nonces.firstUse(nonce.value(), nonce.expires()) ? java.util.Optional.of(admit(presented))
                    : java.util.Optional.empty();
        }
        java.util.Optional<Admission> admission = combined.admit(presented, nonce);
        admission.ifPresent(a -> activity.sawHighWater(presented, a.highWater().value(),
                a.outcome().name().toLowerCase(Locale.ROOT)));
        return admission;
    }

    /** Passes request-signed admissions that arrived together on (in one call when the store decides so), noting each. */
    @Override
    public java.util.List<java.util.Optional<Admission>> admitEach(Fence presented, java.util.List<Nonce> nonces) {
        if (!(store instanceof io.fenceguard.admission.SignedAdmissionStore combined)) {
            return IdempotentAdmissionStore.super.admitEach(presented, nonces);
        }
        java.util.List<java.util.Optional<Admission>> answers = combined.admitEach(presented, nonces);
        answers.forEach(answer -> answer.ifPresent(a -> activity.sawHighWater(presented, a.highWater().value(),
                a.outcome().name().toLowerCase(Locale.ROOT))));
        return answers;
    }

    /** Passes an admission with an idempotency key's claim on (in one call when the store decides so), noting it. */
    @Override
    public ClaimedAdmission admitClaiming(Fence presented, Nonce nonce, String key, String fingerprint) {
        if (!(store instanceof IdempotentAdmissionStore combined)) {
            return IdempotentAdmissionStore.super.admitClaiming(presented, nonce, key, fingerprint);
        }
        ClaimedAdmission answer = combined.admitClaiming(presented, nonce, key, fingerprint);
        if (answer.admission() != null) {
            activity.sawHighWater(presented, answer.admission().highWater().value(),
                    answer.admission().outcome().name().toLowerCase(Locale.ROOT));
        }
        return answer;
    }

    @Override
    public Claim claim(Fence presented, String key, String fingerprint) {
        return keys().claim(presented, key, fingerprint);
    }

    @Override
    public void complete(io.fenceguard.core.ResourceName resource, String key, RecordedResponse response) {
        keys().complete(resource, key, response);
    }

    @Override
    public void abandon(io.fenceguard.core.ResourceName resource, String key) {
        keys().abandon(resource, key);
    }

    private IdempotencyStore keys() {
        if (!(store.backend() instanceof IdempotencyStore keys)) {
            throw new IllegalStateException(store + " keeps no idempotency keys");
        }
        return keys;
    }

    @Override
    public HighWaterStore backend() {
        return store.backend();
    }

    /** The store's non-blocking calls, when it has them, each admission's answer noted as the blocking ones are. */
    @Override
    public java.util.Optional<io.fenceguard.admission.NonBlockingAdmissionStore> nonBlocking() {
        return store.nonBlocking().map(calls -> new io.fenceguard.admission.NonBlockingAdmissionStore() {
            @Override
            public java.util.concurrent.CompletionStage<Admission> admit(Fence presented) {
                return calls.admit(presented).thenApply(this::noted);
            }

            @Override
            public java.util.concurrent.CompletionStage<java.util.Optional<Admission>> admit(Fence presented,
                    Nonce nonce) {
                return calls.admit(presented, nonce).thenApply(answer -> answer.map(this::noted));
            }

            @Override
            public java.util.concurrent.CompletionStage<Boolean> firstUse(String nonce, java.time.Instant expires) {
                return calls.firstUse(nonce, expires);
            }

            /** The store's non-blocking key calls, when it has them, the admission claiming a key noted too. */
            @Override
            public java.util.Optional<io.fenceguard.admission.NonBlockingIdempotencyStore> idempotentAdmissions() {
                return calls.idempotentAdmissions().map(keys -> new io.fenceguard.admission.NonBlockingIdempotencyStore() {
                    @Override
                    public java.util.concurrent.CompletionStage<io.fenceguard.admission.IdempotentAdmissionStore.ClaimedAdmission>
                            admitClaiming(Fence presented, Nonce nonce, String key, String fingerprint) {
                        return keys.admitClaiming(presented, nonce, key, fingerprint).thenApply(answer -> {
                            if (answer.admission() != null) {
                                noted(answer.admission());
                            }
                            return answer;
                        });
                    }

                    @Override
                    public java.util.concurrent.CompletionStage<Void> complete(io.fenceguard.core.ResourceName resource,
                            String key, IdempotencyStore.RecordedResponse response) {
                        return keys.complete(resource, key, response);
                    }

                    @Override
                    public java.util.concurrent.CompletionStage<Void> abandon(io.fenceguard.core.ResourceName resource,
                            String key) {
                        return keys.abandon(resource, key);
                    }
                });
            }

            private Admission noted(Admission admission) {
                activity.sawHighWater(admission.presented(), admission.highWater().value(),
                        admission.outcome().name().toLowerCase(Locale.ROOT));
                return admission;
            }
        });
    }

    @Override
    public boolean reset(io.fenceguard.core.ResourceName resource, io.fenceguard.core.FencingToken expected,
            io.fenceguard.core.FencingToken mark) {
        return store.reset(resource, expected, mark);
    }

    /** The store that decides. */
    public HighWaterStore store() {
        return store;
    }

    @Override
    public String toString() {
        return store.toString();
    }
}
