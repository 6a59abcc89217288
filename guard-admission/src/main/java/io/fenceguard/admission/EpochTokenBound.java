package io.fenceguard.admission;

import io.fenceguard.core.FencingToken;
import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link TokenBound#epochs}: the last token of the highest epoch the source can have issued, plus a slack of epochs. */
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

    @Override
    public FencingToken ceiling() {
        return FencingToken.of(lastTokenOf(epoch(refreshNanos)));
    }

    @Override
    public boolean allows(FencingToken token) {
        if (!token.isNewerThan(ceiling())) {
            return true;
        }
        // The source may have issued epochs since the last read: read again before refusing.
        return !token.isNewerThan(FencingToken.of(lastTokenOf(epoch(MIN_REREAD_NANOS))));
    }

    private long lastTokenOf(long highest) {
        long top = Math.min(MAX_EPOCH, highest + slackEpochs);
        return (top << EPOCH_COUNTER_BITS) | ((1L << EPOCH_COUNTER_BITS) - 1);
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
                        known + slackEpochs, e.toString());
            }
            epoch = known;
            readAtNanos = System.nanoTime();
            return known;
        }
    }

    @Override
    public String toString() {
        return "TokenBound[epoch tokens, slack " + slackEpochs + " epochs]";
    }
}
