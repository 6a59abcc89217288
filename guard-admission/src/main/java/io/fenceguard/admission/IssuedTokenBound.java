package io.fenceguard.admission;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The per-resource ceiling: a presented token above the highest token the lock store has granted for its resource
 * ({@link IssuedTokens}) was never granted, and is refused before it sets any mark (in the high-water store, or on
 * the rows its handler would write). The store is asked only for a token above the highest one already seen for
 * the resource, so a holder's later requests cost nothing; when the store cannot tell (it lost the counter) the
 * token is let through to the {@link TokenBound} and {@link MarkHealing}.
 */
public final class IssuedTokenBound {

    /** Resources whose highest granted token is remembered; past it, all are forgotten at once. */
    private static final int MAX_REMEMBERED = 100_000;

    private final IssuedTokens issued;
    private final ConcurrentMap<ResourceName, FencingToken> granted = new ConcurrentHashMap<>();

    private IssuedTokenBound(IssuedTokens issued) {
        this.issued = Objects.requireNonNull(issued, "issued");
    }

    /** The ceiling of what {@code issued} tells. */
    public static IssuedTokenBound of(IssuedTokens issued) {
        return new IssuedTokenBound(issued);
    }

    /**
     * The highest token granted for {@code presented}'s resource when {@code presented} is above it, else empty.
     *
     * @throws RuntimeException when the lock store cannot be reached
     */
    public Optional<FencingToken> exceeded(Fence presented) {
        ResourceName resource = presented.resource();
        FencingToken known = granted.get(resource);
        if (known != null && !presented.token().isNewerThan(known)) {
            return Optional.empty();
        }
        Optional<FencingToken> highest = issued.highestIssued(resource);
        if (highest.isEmpty()) {
            return Optional.empty();
        }
        if (granted.size() >= MAX_REMEMBERED) {
            granted.clear();
        }
        granted.merge(resource, highest.get(), (a, b) -> a.isNewerThan(b) ? a : b);
        return presented.token().isNewerThan(highest.get()) ? highest : Optional.empty();
    }
}
