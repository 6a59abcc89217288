package io.fenceguard.admission;

import io.fenceguard.core.FencingToken;
import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link TokenBound#epochs}: admits up to the last token of the highest epoch the source has issued; its ceiling (a
 * store's floor after a loss) is {@code slackEpochs} epochs higher. A token of one of the next
 * {@code slackEpochs} epochs reads the source again before it is refused (one read serves every check that began
 * before it), so that the holder of an epoch taken since is admitted; a token further ahead reads it again at most
 * every 50 ms.
 */
final class EpochTokenBound implements TokenBound {

    private static final Logger log = LoggerFactory.getLogger(EpochTokenBound.class);
    private static final long MAX_EPOCH = (1L << (63 - EPOCH_COUNTER_BITS)) - 1;
    private static final long MAX_SLACK = 1L << 20;
    /** Least time between two reads asked for by a token above the ceiling: a flood of such tokens costs little. */
    private static final long MIN_REREAD_NANOS = 50_000_000L;

    private final LongSupplier highestEpoch;
    private final long slackEpochs;
    private final long refreshNanos;
    private final Object reading = new Object();
    private volatile long epoch = -1;
    private volatile long readAtNanos;
    /** When the last read began: a check that began before it is served by it. */
    private volatile long readStartedNanos;

    EpochTokenBound(LongSupplier highestEpoch, long slackEpochs, Duration refresh) {
        this.highestEpoch = Objects.requireNonNull(highestEpoch, "highestEpoch");
        if (slackEpochs < 0 || slackEpochs > MAX_SLACK) {
            throw new IllegalArgumentException("the epoch slack is between 0 and " + MAX_SLACK + ", got " + slackEpochs);
        }
        this.slackEpochs = slackEpochs;
        if (refresh == null || refresh.isNegative() || refresh.isZero() || refresh.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("the refresh interval is positive and at most one hour, got " + refresh);
        }
        this.refreshNanos = refresh.toNanos();
    }

    /** With the slack: at least every token minted by now, though the last read may be {@code refresh} old. */
    @Override
    public FencingToken ceiling() {
        return FencingToken.of(lastTokenOf(Math.min(MAX_EPOCH, epoch(refreshNanos) + slackEpochs)));
    }

    @Override
    public FencingToken highestAdmitted() {
        return FencingToken.of(lastTokenOf(epoch(refreshNanos)));
    }

    /** A read of the epoch source may be due. */
    @Override
    public boolean readsWithoutBlocking() {
        return false;
    }

    @Override
    public boolean allows(FencingToken token) {
        long checkedAt = System.nanoTime();
        long highest = epoch(refreshNanos);
        long tokenEpoch = token.value() >>> EPOCH_COUNTER_BITS;
        if (tokenEpoch <= highest) {
            return true;
        }
        // The source may have issued epochs since the last read: read again before refusing. A token just above
        // waits for a read that began after this check; one further ahead (no holder's, most likely) takes the last
        // read if it is recent.
        long reread = tokenEpoch - highest <= slackEpochs ? epochReadAfter(checkedAt) : epoch(MIN_REREAD_NANOS);
        return tokenEpoch <= reread;
    }

    private static long lastTokenOf(long highest) {
        return (highest << EPOCH_COUNTER_BITS) | ((1L << EPOCH_COUNTER_BITS) - 1);
    }

    /** The highest epoch from a read that began at or after {@code checkedAt}. */
    private long epochReadAfter(long checkedAt) {
        synchronized (reading) {
            if (epoch >= 0 && readStartedNanos - checkedAt >= 0) {
                return epoch;
            }
            return read();
        }
    }

    /** The highest epoch read, read again when the last read is older than {@code maxAgeNanos}. */
    private long epoch(long maxAgeNanos) {
        long known = epoch;
        if (known >= 0 && System.nanoTime() - readAtNanos < maxAgeNanos) {
            return known;
        }
        synchronized (reading) {
            known = epoch;
            if (known >= 0 && System.nanoTime() - readAtNanos < maxAgeNanos) {
                return known;
            }
            return read();
        }
    }

    /** Reads the source (holding {@link #reading}); keeps the last value when it cannot be read. */
    private long read() {
        long known = epoch;
        readStartedNanos = System.nanoTime();
        try {
            long read = highestEpoch.getAsLong();
            if (read < 0 || read > MAX_EPOCH) {
                throw new IllegalStateException("the token epoch source reports " + read + ", outside 0.." + MAX_EPOCH);
            }
            known = Math.max(known, read);
        } catch (RuntimeException e) {
            if (known < 0) {
                throw new IllegalStateException("cannot bound epoch tokens: the highest epoch cannot be read: "
                        + e.getMessage(), e);
            }
            log.warn("fenceguard: could not read the highest token epoch; the bound stays at epoch {}: {}",
                    known, e.toString());
        }
        epoch = known;
        readAtNanos = System.nanoTime();
        return known;
    }

    @Override
    public String toString() {
        return "TokenBound[epoch tokens, read again before refusing the next " + slackEpochs + " epochs]";
    }
}
