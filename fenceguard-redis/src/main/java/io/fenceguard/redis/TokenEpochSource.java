package io.fenceguard.redis;

/**
 * A durable, linearizable source of epochs for {@link RedisLeaseProvider}'s tokens, so that they need no
 * clock. The provider asks for an epoch only when Redis has lost a resource's counter (the key is missing:
 * a new or long idle resource, a restart without persistence, {@code FLUSHALL}) or a counter has used up
 * its epoch; the common path stays one Redis round trip.
 *
 * <p>A token is {@code epoch × 2^24 + n}, where {@code n} counts the grants of the resource in that
 * epoch. A new epoch is asked for only after Redis has recorded the need for it (a claim in the
 * resource's slot), and used only while that claim still stands, so every epoch in use was obtained after
 * the last loss and is greater than every epoch before it: its tokens are above every earlier token.
 *
 * <p>Implementations: {@link JdbcTokenEpochSource} (a sequence in the application's own database), or any
 * counter with the same guarantee.
 */
@FunctionalInterface
public interface TokenEpochSource {

    /**
     * A positive value greater than every value this source returned before, to any process, also across
     * restarts and failovers of the source; below {@code 2^39} (the epoch's share of a 64-bit token).
     *
     * @throws RuntimeException when the source cannot be reached; the acquire then fails with
     *                          {@link io.fenceguard.core.LeaseUnavailableException}
     */
    long nextEpoch();
}
