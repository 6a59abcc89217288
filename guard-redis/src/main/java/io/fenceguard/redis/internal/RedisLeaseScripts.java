package io.fenceguard.redis.internal;

import java.util.List;
import java.util.concurrent.CompletionStage;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The three Lua scripts behind a lease. Each is one atomic round trip.
 *
 * <p>Tokens: {@code max(last + 1, now in µs from Redis TIME)}. The counter alone would restart at 1
 * when Redis loses its data; the clock floor keeps the next token above every earlier one as long as
 * the server clock has not gone back by more than the time since the last acquisition.
 */
public final class RedisLeaseScripts {

    /** Outcome codes of {@link #ACQUIRE}. */
    public static final long ACQUIRED = 1;
    public static final long HELD = 0;
    public static final long DELAYED = -1;

    // KEYS: lock, delay, seq. ARGV: holder, lease ms, lock-delay ms, seq ttl ms.
    // Returns {ACQUIRED, token} | {HELD, lock pttl} | {DELAYED, delay pttl}.
    static final String ACQUIRE = """
            local lease = tonumber(ARGV[2])
            local holder = redis.call('HGET', KEYS[1], 'holder')
            if holder == ARGV[1] then
              redis.call('PEXPIRE', KEYS[1], lease)
              redis.call('PEXPIRE', KEYS[2], lease + tonumber(ARGV[3]))
              redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[4]))
              return {1, tonumber(redis.call('HGET', KEYS[1], 'token'))}
            end
            if holder then
              return {0, redis.call('PTTL', KEYS[1])}
            end
            local delay = redis.call('PTTL', KEYS[2])
            if delay > 0 then
              return {-1, delay}
            end
            local now = redis.call('TIME')
            local floor = tonumber(now[1]) * 1000000 + tonumber(now[2])
            local last = tonumber(redis.call('GET', KEYS[3]) or '0')
            local token = math.max(last + 1, floor)
            local text = string.format('%.0f', token)
            redis.call('HSET', KEYS[1], 'holder', ARGV[1], 'token', text)
            redis.call('PEXPIRE', KEYS[1], lease)
            redis.call('SET', KEYS[2], ARGV[1], 'PX', lease + tonumber(ARGV[3]))
            redis.call('SET', KEYS[3], text, 'PX', tonumber(ARGV[4]))
            return {1, token}
            """;

    // KEYS: lock, delay, seq. ARGV: holder, lease ms, lock-delay ms, seq ttl ms.
    // Returns 1 when renewed, 0 when not ours. The sequence is kept as long as the lock is.
    static final String RENEW = """
            if redis.call('HGET', KEYS[1], 'holder') == ARGV[1] then
              local lease = tonumber(ARGV[2])
              redis.call('PEXPIRE', KEYS[1], lease)
              redis.call('PEXPIRE', KEYS[2], lease + tonumber(ARGV[3]))
              redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[4]))
              return 1
            end
            return 0
            """;

    // Compare-and-delete: only the holder's own lock goes. KEYS: lock, delay. ARGV: holder, channel.
    static final String RELEASE = """
            if redis.call('HGET', KEYS[1], 'holder') == ARGV[1] then
              redis.call('DEL', KEYS[1], KEYS[2])
              redis.call('PUBLISH', ARGV[2], ARGV[1])
              return 1
            end
            return 0
            """;

    private final RScript script;

    public RedisLeaseScripts(RedissonClient redisson) {
        this.script = redisson.getScript(StringCodec.INSTANCE);
    }

    /** {status, value}: see {@link #ACQUIRE}. */
    public long[] acquire(LeaseKeys keys, String holder, long leaseMs, long delayMs, long seqTtlMs) {
        List<Object> reply = script.eval(keys.lock(), RScript.Mode.READ_WRITE, ACQUIRE, RScript.ReturnType.LIST,
                keys.all(), holder, Long.toString(leaseMs), Long.toString(delayMs), Long.toString(seqTtlMs));
        return new long[] {toLong(reply.get(0)), toLong(reply.get(1))};
    }

    public CompletionStage<Boolean> renew(LeaseKeys keys, String holder, long leaseMs, long delayMs, long seqTtlMs) {
        CompletionStage<Long> reply = script.evalAsync(keys.lock(), RScript.Mode.READ_WRITE, RENEW,
                RScript.ReturnType.LONG, keys.all(), holder,
                Long.toString(leaseMs), Long.toString(delayMs), Long.toString(seqTtlMs));
        return reply.thenApply(r -> r != null && r == 1L);
    }

    public boolean release(LeaseKeys keys, String holder) {
        Long reply = script.eval(keys.lock(), RScript.Mode.READ_WRITE, RELEASE, RScript.ReturnType.LONG,
                List.of(keys.lock(), keys.delay()), holder, keys.channel());
        return reply != null && reply == 1L;
    }

    private static long toLong(Object value) {
        return value instanceof Number n ? n.longValue() : Long.parseLong(String.valueOf(value));
    }
}
