package io.fenceguard.core.spi;

import io.fenceguard.core.FencingToken;
import java.util.Objects;

/**
 * A lock the store granted.
 *
 * @param token strictly greater than every token granted before on the same resource
 * @param sentAtNanos {@link System#nanoTime()} when the request that obtained it was sent: the local
 *                    view of the lease counts from there, so that it never outlives the store's
 */
public record Grant(FencingToken token, long sentAtNanos) {

    public Grant {
        Objects.requireNonNull(token, "token");
    }
}
