package io.fenceguard.admission;

import io.fenceguard.core.FencingToken;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * The highest token the issuing side could have minted by now. A presented token above it was not
 * minted by a lock store (a forged or corrupted value) and is refused before it reaches the
 * high-water store, so one such token cannot raise a resource's mark out of every holder's reach. A
 * store that has lost its marks uses the same ceiling as the floor below which it refuses, since every
 * token minted before the loss is at most that ceiling.
 *
 * <p>The bound must match how the tokens are minted:
 * <ul>
 *   <li>{@link #clockFloor} for tokens that are their server's time in µs (the Redis provider on the clock
 *   floor), and a loose but valid bound for the counter tokens of the ZooKeeper and database providers,
 *   which stay far below it.</li>
 *   <li>{@link #epochs} for the Redis provider on a durable epoch ({@code epoch × 2^24 + n}): its epochs
 *   start near the current time in µs divided by {@code 2^24} and every lost counter takes one more, so its
 *   tokens run ahead of the clock and the clock floor would refuse their holders.</li>
 *   <li>Below any ceiling a token can still be above what the store granted for its resource; what bounds that
 *   lock-out is {@link MarkHealing} with the store's {@link IssuedTokens}.</li>
 *   <li>{@link #atMost} for a fixed ceiling.</li>
 * </ul>
 */
@FunctionalInterface
public interface TokenBound {

    /** Default allowance for the lock store's clock being ahead of this one. */
    Duration DEFAULT_SKEW = Duration.ofSeconds(5);

    /** The highest token that can have been minted by now. */
    FencingToken ceiling();

    /**
     * Tokens that are the lock store's time in µs since the epoch (see the Redis provider's token
     * rules): at most this clock's time plus {@code skew}.
     */
    static TokenBound clockFloor(Clock clock, Duration skew) {
        Objects.requireNonNull(clock, "clock");
        if (skew == null || skew.isNegative() || skew.compareTo(Duration.ofDays(1)) > 0) {
            throw new IllegalArgumentException("the allowed clock skew is between 0 and one day, got " + skew);
        }
        long skewMicros = skew.toNanos() / 1_000;
        return new TokenBound() {
            @Override
            public FencingToken ceiling() {
                Instant now = clock.instant();
                return FencingToken.of(Math.addExact(Math.multiplyExact(now.getEpochSecond(), 1_000_000L),
                        now.getNano() / 1_000) + skewMicros);
            }

            @Override
            public String toString() {
                return "TokenBound[clock floor, skew " + skew + "]";
            }
        };
    }

    /** {@link #clockFloor(Clock, Duration)} on the system clock with {@link #DEFAULT_SKEW}. */
    static TokenBound clockFloor() {
        return clockFloor(Clock.systemUTC(), DEFAULT_SKEW);
    }

    /** The bits of an epoch token that count the grants within its epoch. */
    int EPOCH_COUNTER_BITS = 24;

    /** Default number of epochs above the highest read whose tokens read the source again before a refusal. */
    long DEFAULT_EPOCH_SLACK = 16;

    /**
     * Tokens on a durable epoch, {@code epoch × 2^24 + n} (the Redis provider with a token epoch source): admits
     * at most the last token of the highest epoch the source has issued, {@code highestEpoch} (such as
     * {@code JdbcTokenEpochSource::highestEpoch} of fenceguard-redis), read at most every {@code refresh}; its
     * {@link #ceiling()}, the floor of a high-water store after a loss, stays {@code slackEpochs} epochs higher,
     * since epochs may have been taken since the last read. A token
     * of one of the next {@code slackEpochs} epochs reads the source again before it is refused (one read serves
     * every check that began before it), so that the holder of an epoch taken since is admitted; a token further
     * ahead reads it again at most every 50 ms. When the source cannot be read the last value read stays the
     * bound (tokens above it are refused); before a first read succeeds, {@link #ceiling()} throws.
     *
     * <p>Within the highest epoch, a resource whose own epoch is lower can still be handed a token it was never
     * granted: the ceiling cannot know each resource's counter. {@link MarkHealing} sets such a mark back.
     *
     * @param slackEpochs epochs above the highest read whose tokens wait for a fresh read, between 0 and {@code 2^20}
     */
    static TokenBound epochs(java.util.function.LongSupplier highestEpoch, long slackEpochs, Duration refresh) {
        return new EpochTokenBound(highestEpoch, slackEpochs, refresh);
    }

    /** {@link #epochs(java.util.function.LongSupplier, long, Duration)} with {@link #DEFAULT_EPOCH_SLACK}, read every second. */
    static TokenBound epochs(java.util.function.LongSupplier highestEpoch) {
        return epochs(highestEpoch, DEFAULT_EPOCH_SLACK, Duration.ofSeconds(1));
    }

    /** A fixed ceiling, such as the last token of the current epoch of an epoch-numbered lock store. */
    static TokenBound atMost(long highest) {
        FencingToken ceiling = FencingToken.of(highest);
        return new TokenBound() {
            @Override
            public FencingToken ceiling() {
                return ceiling;
            }

            @Override
            public String toString() {
                return "TokenBound[at most " + ceiling + "]";
            }
        };
    }

    /**
     * Whether {@link #allows} and {@link #ceiling()} answer without waiting for a store (a clock, a constant); a
     * bound that reads its epochs from a database does not, and is asked off a reactive server's event loop.
     */
    default boolean readsWithoutBlocking() {
        return true;
    }

    /** Whether {@code token} could have been minted by now: at most {@link #highestAdmitted()}. */
    default boolean allows(FencingToken token) {
        return !token.isNewerThan(ceiling());
    }

    /**
     * The highest token {@link #allows} admits now, for a refusal's message: {@link #ceiling()} unless the bound
     * admits less than the ceiling it keeps as a store's floor after a loss (as {@link #epochs} does).
     */
    default FencingToken highestAdmitted() {
        return ceiling();
    }
}
