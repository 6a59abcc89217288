package io.fenceguard.admission;

import java.time.Instant;

/**
 * Remembers the nonces of request signatures until they expire, so that a captured signed request is
 * admitted at most once. Kept in the high-water store's backend: {@link InMemoryHighWaterStore},
 * {@code JdbcHighWaterStore} and {@code RedisHighWaterStore} implement it. Fails closed: when the
 * store cannot answer it throws, and the request is refused.
 */
@FunctionalInterface
public interface NonceStore {

    /**
     * Records {@code nonce} (at most 200 characters) until {@code expires}; answers whether it was not
     * recorded yet (atomically: of concurrent first uses exactly one answers true).
     */
    boolean firstUse(String nonce, Instant expires);
}
