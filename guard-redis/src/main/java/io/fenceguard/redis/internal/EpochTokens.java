package io.fenceguard.redis.internal;

/**
 * Tokens on a durable epoch: {@code epoch × 2^24 + n}, {@code n} the grants of the resource within the
 * epoch (at most {@code 2^24 − 1}; the next grant takes a new epoch). A later epoch's first token is
 * above every token of any earlier epoch. The arithmetic is done here in 64 bits; the scripts keep the
 * two parts apart because Lua's numbers are doubles. The layout is the one the admission side bounds
 * ({@code TokenBound.epochs}): its width is {@code TokenBound.EPOCH_COUNTER_BITS}, a constant the compiler
 * copies here, so that fenceguard-admission need not be present at run time.
 */
public final class EpochTokens {

    public static final int COUNTER_BITS = io.fenceguard.admission.TokenBound.EPOCH_COUNTER_BITS;
    public static final long PER_EPOCH = 1L << COUNTER_BITS;
    public static final long MAX_EPOCH = (1L << (63 - COUNTER_BITS)) - 1;

    private EpochTokens() {
    }

    public static long token(long epoch, long n) {
        if (epoch <= 0 || epoch > MAX_EPOCH) {
            throw new IllegalStateException("token epoch " + epoch + " is outside 1.." + MAX_EPOCH);
        }
        if (n < 0 || n >= PER_EPOCH) {
            throw new IllegalStateException("token counter " + n + " is outside 0.." + (PER_EPOCH - 1));
        }
        return epoch * PER_EPOCH + n;
    }
}
