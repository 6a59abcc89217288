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
 * <p>Every client of one lock store must take its epochs from the same source: a client on another counter could
 * hand out an epoch below one already in use. {@link RedisLeaseProvider} records the {@link #identity()} of the
 * source in Redis on first use and refuses to work with a store that records another one.
 *
 * <p>Implementations: {@link JdbcTokenEpochSource} (a sequence in the application's own database), or any
 * counter with the same guarantee.
 *
 * <p>The token epoch, type by type: this SPI and {@link JdbcTokenEpochSource} are the API. The rest is how it is
 * used: {@code DurableEpochs} is the provider's grant on a lost counter (claim, epoch, install) and its check of
 * the recorded source; {@code internal.EpochSourceRecord} is that record in Redis (which source, and the highest
 * epoch installed); {@code internal.EpochTokens} is the token arithmetic, {@code epoch × 2^24 + n}. On the
 * admission side {@code io.fenceguard.admission.TokenBound#epochs} bounds presented tokens by
 * {@link #highestEpoch()}, and the Spring Boot starter decides the application's one source for the provider and
 * every bound alike.
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

    /**
     * What this source is, the same for every process that takes epochs from the same counter and different for
     * any other counter (such as the database's system identifier and the sequence's qualified name), recorded in
     * Redis so that a client on another source is refused. {@code null} (the default): the source cannot name
     * itself and is not checked.
     *
     * @throws RuntimeException when the source cannot be reached to find out
     */
    default String identity() {
        return null;
    }

    /**
     * The highest epoch this source can have returned by now, to any process, without taking one: the basis of
     * the admission side's bound on presented tokens ({@code io.fenceguard.admission.TokenBound#epochs}).
     *
     * @throws UnsupportedOperationException when the source cannot tell (the default)
     * @throws RuntimeException              when the source cannot be reached
     */
    default long highestEpoch() {
        throw new UnsupportedOperationException(getClass().getName() + " cannot tell its highest epoch; "
                + "bound admitted tokens with a TokenBound of your own");
    }

    /**
     * Advances this source so that every later {@link #nextEpoch()} is above {@code epoch} (nothing when it already
     * is): the step that makes it safe to move a lock store from another source to this one
     * ({@link RedisLeaseConfig#tokenEpochSourceReplaces()}).
     *
     * @throws UnsupportedOperationException when the source cannot be advanced (the default)
     * @throws RuntimeException              when the source cannot be reached
     */
    default void advancePast(long epoch) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot be advanced past an epoch; "
                + "a lock store cannot be moved to it");
    }
}
