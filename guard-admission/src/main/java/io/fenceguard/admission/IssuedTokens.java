package io.fenceguard.admission;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.util.Optional;

/**
 * What the lock store has minted: the highest token it has granted for a resource by now. A {@link TokenBound}
 * keeps tokens that no store could mint out, but below its ceiling a token can still be above what the store
 * minted for this resource (a leaked signing key, a buggy client), and its mark would lock the resource's holders
 * out until the store's counter passes it. {@link MarkHealing} asks this when a holder is refused as stale, and sets
 * such a mark back.
 *
 * <p>An answer must be at least every token the store granted for the resource before the call (read from the
 * store's primary, not a replica that may lag).
 */
@FunctionalInterface
public interface IssuedTokens {

    /**
     * The highest token minted for {@code resource} by now, or empty when the store cannot tell (it has lost the
     * resource's counter, or it keeps none): then no mark is set back.
     *
     * @throws RuntimeException when the store cannot be reached: the refusal stands
     */
    Optional<FencingToken> highestIssued(ResourceName resource);
}
