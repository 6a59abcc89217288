package io.fenceguard.redis.internal;

/** The lease scripts' text for the benchmarks, which run them from redis-benchmark as well. */
public final class LeaseScriptTexts {

    private LeaseScriptTexts() {
    }

    /**
     * The clock-floor acquire. KEYS: lock, delay, seq, given-up marker; ARGV: holder, lease ms, lock-delay ms,
     * seq ttl ms.
     */
    public static String acquire() {
        return RedisLeaseScripts.ACQUIRE;
    }

    /** The release: compare-and-delete, then a publish on the channel. KEYS: lock, delay; ARGV: holder, channel. */
    public static String release() {
        return RedisLeaseScripts.RELEASE;
    }
}
