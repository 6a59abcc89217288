package io.fenceguard.admission;

import io.fenceguard.core.Fence;
import java.util.Objects;
import java.util.Optional;

/**
 * A high-water store that also keeps nonces and idempotency keys, and decides a fenced request's admission and
 * the claim of its {@code Idempotency-Key} in one call: the nonce's first use (request-signed requests), the token
 * against the mark, and, only when the token is admitted, the key's claim. On Redis one script, one round trip,
 * instead of an admission followed by {@link #claim}. A replayed or stale request leaves no claim behind.
 * {@link InboundFence#check(ResourceTemplate, java.util.Map, InboundRequest, IdempotencyStore, String, String)}
 * uses it when the idempotency store it is given is this store's {@link #backend()}. Fails closed like the separate
 * calls: when the store cannot answer it throws, and the request is refused.
 */
public interface IdempotentAdmissionStore extends SignedAdmissionStore, IdempotencyStore {

    @Override
    default Optional<IdempotentAdmissionStore> idempotentAdmissions() {
        return Optional.of(this);
    }

    /**
     * Records {@code nonce} ({@code null}: the request is not request-signed) as
     * {@link #admit(Fence, Nonce)} does, then admits {@code presented} as {@link #admit(Fence)}
     * does and, when it is admitted, claims {@code key} for the request with {@code fingerprint} as {@link #claim}
     * does. By default these calls one after another; a store that can, decides them in one round trip.
     */
    default ClaimedAdmission admitClaiming(Fence presented, Nonce nonce, String key, String fingerprint) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(fingerprint, "fingerprint");
        // With its creation time: taken as unknown, a signature counts as made up to MAX_LIFETIME before it expires,
        // and a store that refuses signatures made before a moment (the JDBC store after a crash) would refuse new ones.
        Optional<Admission> admitted = nonce == null ? Optional.of(admit(presented)) : admit(presented, nonce);
        if (admitted.isEmpty()) {
            return ClaimedAdmission.replayed();
        }
        Admission admission = admitted.get();
        return new ClaimedAdmission(admission, admission.admitted() ? claim(presented, key, fingerprint) : null);
    }

    /**
     * The answer to {@link #admitClaiming}: {@code admission} is {@code null} when the nonce was used before
     * (nothing changed); {@code claim} is the key's claim when the request was admitted, else {@code null}.
     */
    record ClaimedAdmission(Admission admission, Claim claim) {

        public ClaimedAdmission {
            if (admission == null && claim != null) {
                throw new IllegalArgumentException("a replayed request claims no key");
            }
            if (admission != null && admission.admitted() != (claim != null)) {
                throw new IllegalArgumentException("an admitted request has a claim, a stale one none: " + admission
                        + ", " + claim);
            }
        }

        public static ClaimedAdmission replayed() {
            return new ClaimedAdmission(null, null);
        }
    }
}
