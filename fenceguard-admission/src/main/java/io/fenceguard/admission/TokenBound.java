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
 * <p>The default, {@link #clockFloor}, is exact for lock stores whose tokens are their server's time in
 * µs (the Redis provider) and a loose but valid bound for the counter and epoch tokens of the
 * ZooKeeper and database providers, which stay far below it; a tighter bound for those is
 * {@link #atMost} with the end of the current epoch's range.
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

    /** Whether {@code token} could have been minted by now. */
    default boolean allows(FencingToken token) {
        return !token.isNewerThan(ceiling());
    }
}
