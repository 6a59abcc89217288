package io.fenceguard.admission;

import io.fenceguard.core.Fence;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A high-water store that decides a request-signed admission in one step, with the nonce store of its
 * {@link #backend()}: the nonce's first use and the token's admission in one call (on Redis one script,
 * one round trip) instead of {@link NonceStore#firstUse} followed by {@link HighWaterStore#admit}.
 * {@link InboundFence} uses it when its high-water store offers it and the store's backend is its nonce
 * store. A decorator (for metrics, say) implements it by passing the call on. Fails closed like both.
 */
public interface SignedAdmissionStore extends HighWaterStore {

    /**
     * Records {@code nonce} (at most 200 characters) until {@code expires} and, when it was not recorded
     * yet, admits {@code presented} as {@link #admit(Fence)} does; answers empty, changing no mark, when
     * the nonce was used before (a replay). A fresh nonce stays recorded whatever the admission's outcome,
     * as with the two separate calls.
     */
    Optional<Admission> admit(Fence presented, String nonce, Instant expires);

    @Override
    default Optional<SignedAdmissionStore> signedAdmissions() {
        return Optional.of(this);
    }

    /**
     * A request signature's nonce, when the signature says it was made (the signer's clock) and when the nonce
     * may be forgotten.
     */
    record Nonce(String value, Instant created, Instant expires) {

        public Nonce {
            java.util.Objects.requireNonNull(value, "value");
            java.util.Objects.requireNonNull(created, "created");
            java.util.Objects.requireNonNull(expires, "expires");
        }

        /** Without a known creation time: taken as early as the longest accepted signature lifetime allows. */
        public Nonce(String value, Instant expires) {
            this(value, RequestSignatures.earliestCreation(java.util.Objects.requireNonNull(expires, "expires")), expires);
        }
    }

    /**
     * {@link #admit(Fence, String, Instant)} with the nonce's creation time, for a store that uses it (the JDBC
     * store on PostgreSQL: nonces its database may have lost in a crash are told apart by it).
     */
    default Optional<Admission> admit(Fence presented, Nonce nonce) {
        return admit(presented, nonce.value(), nonce.expires());
    }

    /**
     * The answers to a group whose nonces were each fresh or not ({@code fresh}, in the group's order) and whose
     * fence was admitted once as {@code decided} (null when no nonce was fresh): the first fresh nonce has that
     * admission, the later fresh ones continue its claim, a used one is empty. For stores deciding a group in one
     * call.
     */
    static List<Optional<Admission>> groupAnswers(List<Boolean> fresh, Admission decided) {
        List<Optional<Admission>> answers = new ArrayList<>(fresh.size());
        boolean first = true;
        for (boolean each : fresh) {
            if (!each || decided == null) {
                answers.add(Optional.empty());
            } else if (first || decided.outcome() != Admission.Outcome.CLAIMED) {
                answers.add(Optional.of(decided));
                first = false;
            } else {
                answers.add(Optional.of(new Admission(decided.presented(), decided.highWater(),
                        Admission.Outcome.CONTINUED)));
            }
        }
        return answers;
    }

    /**
     * Request-signed admissions of one fence that arrived together, as if each were {@link #admit(Fence, Nonce)} in
     * turn: per nonce, in order, empty when it was used before, else the admission of
     * {@code presented}. The first fresh nonce's admission decides (claimed, continued or stale); the other fresh
     * ones continue a claim. A store that can, decides them all in one round trip; by default, one call each.
     */
    default List<Optional<Admission>> admitEach(Fence presented, List<Nonce> nonces) {
        List<Optional<Admission>> answers = new ArrayList<>(nonces.size());
        for (Nonce nonce : nonces) {
            answers.add(admit(presented, nonce));
        }
        return answers;
    }
}
