package io.fenceguard.admission;

import io.fenceguard.core.Fence;
import java.time.Instant;
import java.util.Optional;

/**
 * A high-water store that is also the nonce store and decides a request-signed admission in one step:
 * the nonce's first use and the token's admission in one call (on Redis one script, one round trip)
 * instead of {@link NonceStore#firstUse} followed by {@link HighWaterStore#admit}. {@link InboundFence}
 * uses it when its high-water store offers it and is its nonce store too. Fails closed like both.
 */
public interface SignedAdmissionStore extends HighWaterStore, NonceStore {

    /**
     * Records {@code nonce} (at most 200 characters) until {@code expires} and, when it was not recorded
     * yet, admits {@code presented} as {@link #admit(Fence)} does; answers empty, changing no mark, when
     * the nonce was used before (a replay). A fresh nonce stays recorded whatever the admission's outcome,
     * as with the two separate calls.
     */
    Optional<Admission> admit(Fence presented, String nonce, Instant expires);
}
