package io.fenceguard.redis.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RScriptAsync;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.connection.CRC16;

/**
 * The Lua scripts behind a lease. Each is one atomic round trip, and each answers with the Redis
 * server's {@code TIME} as well, so that the client can tell when the server's clock jumped.
 *
 * <p>Tokens, clock floor: {@code max(last + 1, now in µs from Redis TIME)}. The counter alone would
 * restart at 1 when Redis loses its data; the clock floor keeps the next token above every earlier one
 * as long as the server clock has not gone back by more than the time since the last acquisition.
 *
 * <p>Tokens, durable epoch: {@code epoch × 2^24 + n} ({@link EpochTokens}). While the resource's
 * {@code {e, n}} hash exists a grant only counts {@code n} up. When it is missing (or {@code n} is used
 * up) the script records a claim and answers {@link #NEED_EPOCH}; the client takes a new epoch from its
 * durable source <em>after</em> that answer and tries again with it and the claim. The epoch is installed
 * only while the claim still stands: a loss between the claim and the install removes the claim, so an
 * epoch taken before a loss is never installed after it.
 */
public final class RedisLeaseScripts {

    /** Outcome codes of the acquire scripts. */
    public static final long ACQUIRED = 1;
    public static final long HELD = 0;
    public static final long DELAYED = -1;
    public static final long NEED_EPOCH = -2;

    // KEYS: lock, delay, seq. ARGV: holder, lease ms, lock-delay ms, seq ttl ms.
    // Returns {ACQUIRED, token} | {HELD, lock pttl} | {DELAYED, delay pttl}, then TIME s, µs.
    static final String ACQUIRE = """
            local now = redis.call('TIME')
            local lease = tonumber(ARGV[2])
            local holder = redis.call('HGET', KEYS[1], 'holder')
            if holder == ARGV[1] then
              redis.call('PEXPIRE', KEYS[1], lease)
              redis.call('PEXPIRE', KEYS[2], lease + tonumber(ARGV[3]))
              redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[4]))
              return {1, redis.call('HGET', KEYS[1], 'token'), now[1], now[2]}
            end
            if holder then
              return {0, redis.call('PTTL', KEYS[1]), now[1], now[2]}
            end
            local delay = redis.call('PTTL', KEYS[2])
            if delay > 0 then
              return {-1, delay, now[1], now[2]}
            end
            local floor = tonumber(now[1]) * 1000000 + tonumber(now[2])
            local last = tonumber(redis.call('GET', KEYS[3]) or '0')
            local token = math.max(last + 1, floor)
            local text = string.format('%.0f', token)
            redis.call('HSET', KEYS[1], 'holder', ARGV[1], 'token', text)
            redis.call('PEXPIRE', KEYS[1], lease)
            redis.call('SET', KEYS[2], ARGV[1], 'PX', lease + tonumber(ARGV[3]))
            redis.call('SET', KEYS[3], text, 'PX', tonumber(ARGV[4]))
            return {1, text, now[1], now[2]}
            """;

    // KEYS: lock, delay, eseq, eclaim. ARGV: holder, lease ms, lock-delay ms, seq ttl ms, epoch or '',
    // claim or '', a fresh claim, grants per epoch.
    // Returns {ACQUIRED, e, n} | {HELD, lock pttl, 0} | {DELAYED, delay pttl, 0} | {NEED_EPOCH, claim, 0},
    // then TIME s, µs.
    static final String ACQUIRE_EPOCH = """
            local now = redis.call('TIME')
            local lease = tonumber(ARGV[2])
            local holder = redis.call('HGET', KEYS[1], 'holder')
            if holder == ARGV[1] then
              redis.call('PEXPIRE', KEYS[1], lease)
              redis.call('PEXPIRE', KEYS[2], lease + tonumber(ARGV[3]))
              redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[4]))
              return {1, redis.call('HGET', KEYS[1], 'e'), redis.call('HGET', KEYS[1], 'n'), now[1], now[2]}
            end
            if holder then
              return {0, redis.call('PTTL', KEYS[1]), 0, now[1], now[2]}
            end
            local delay = redis.call('PTTL', KEYS[2])
            if delay > 0 then
              return {-1, delay, 0, now[1], now[2]}
            end
            local e = redis.call('HGET', KEYS[3], 'e')
            local n = tonumber(redis.call('HGET', KEYS[3], 'n') or '-1') + 1
            if (not e) or n >= tonumber(ARGV[8]) then
              local claim = redis.call('GET', KEYS[4])
              if ARGV[6] == '' or claim ~= ARGV[6] or (e and tonumber(ARGV[5]) <= tonumber(e)) then
                if not claim then
                  claim = ARGV[7]
                  redis.call('SET', KEYS[4], claim, 'PX', tonumber(ARGV[4]))
                end
                return {-2, claim, 0, now[1], now[2]}
              end
              redis.call('DEL', KEYS[4])
              e = ARGV[5]
              n = 0
              redis.call('HSET', KEYS[3], 'e', e, 'n', 0)
            else
              redis.call('HSET', KEYS[3], 'n', n)
            end
            redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[4]))
            redis.call('HSET', KEYS[1], 'holder', ARGV[1], 'e', e, 'n', n)
            redis.call('PEXPIRE', KEYS[1], lease)
            redis.call('SET', KEYS[2], ARGV[1], 'PX', lease + tonumber(ARGV[3]))
            return {1, e, n, now[1], now[2]}
            """;

    // KEYS: lock, delay, seq (or eseq). ARGV: holder, lease ms, lock-delay ms, seq ttl ms.
    // Returns {1 when renewed | 0 when not ours, TIME s, µs}. The sequence is kept as long as the lock is.
    static final String RENEW = """
            local now = redis.call('TIME')
            if redis.call('HGET', KEYS[1], 'holder') == ARGV[1] then
              local lease = tonumber(ARGV[2])
              redis.call('PEXPIRE', KEYS[1], lease)
              redis.call('PEXPIRE', KEYS[2], lease + tonumber(ARGV[3]))
              redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[4]))
              return {1, now[1], now[2]}
            end
            return {0, now[1], now[2]}
            """;

    // Many renewals in one call. KEYS: lock, delay, seq (or eseq) of each lease in turn. ARGV: lock-delay ms,
    // then holder, lease ms, seq ttl ms of each lease in turn. Returns {TIME s, µs, then 1 | 0 per lease}.
    static final String RENEW_MANY = """
            local now = redis.call('TIME')
            local delay = tonumber(ARGV[1])
            local out = {now[1], now[2]}
            for i = 0, #KEYS / 3 - 1 do
              local k = i * 3
              if redis.call('HGET', KEYS[k + 1], 'holder') == ARGV[k + 2] then
                local lease = tonumber(ARGV[k + 3])
                redis.call('PEXPIRE', KEYS[k + 1], lease)
                redis.call('PEXPIRE', KEYS[k + 2], lease + delay)
                redis.call('PEXPIRE', KEYS[k + 3], tonumber(ARGV[k + 4]))
                out[#out + 1] = 1
              else
                out[#out + 1] = 0
              end
            end
            return out
            """;

    /** Leases per renewal script call: bounds how long one call keeps Redis busy (about a millisecond per 1,000). */
    public static final int RENEWALS_PER_CALL = 2_000;

    // Compare-and-delete: only the holder's own lock goes. KEYS: lock, delay. ARGV: holder, channel.
    static final String RELEASE = """
            if redis.call('HGET', KEYS[1], 'holder') == ARGV[1] then
              redis.call('DEL', KEYS[1], KEYS[2])
              redis.call('PUBLISH', ARGV[2], ARGV[1])
              return 1
            end
            return 0
            """;

    /** An acquire script's answer: outcome, its values, and the server's time in µs. */
    public record AcquireReply(long status, long value, long extra, long serverMicros) {
    }

    /** A renewal's answer. */
    public record RenewReply(boolean ours, long serverMicros) {
    }

    /** One lease of a {@link #renewAll}. */
    public record RenewItem(LeaseKeys keys, String holder, long leaseMs, long seqTtlMs) {
    }

    private final RedissonClient redisson;
    private final RScript script;
    private final boolean cluster;

    public RedisLeaseScripts(RedissonClient redisson) {
        this.redisson = redisson;
        this.script = redisson.getScript(StringCodec.INSTANCE);
        this.cluster = redisson.getConfig().isClusterConfig();
    }

    /**
     * Renews many leases in as few calls as the topology allows: on one Redis (single, sentinel,
     * replicated) one script per {@link #RENEWALS_PER_CALL} leases; on a Cluster, where a script touches
     * one slot only, one script per slot, all of them sent in one pipeline per node. One answer per item.
     */
    public List<CompletionStage<RenewReply>> renewAll(List<RenewItem> items, boolean epoch, long delayMs) {
        List<CompletionStage<RenewReply>> replies = new ArrayList<>(items.size());
        if (!cluster) {
            for (int from = 0; from < items.size(); from += RENEWALS_PER_CALL) {
                List<RenewItem> chunk = items.subList(from, Math.min(items.size(), from + RENEWALS_PER_CALL));
                replies.addAll(split(renewMany(script, chunk, epoch, delayMs), chunk.size()));
            }
            return replies;
        }
        Map<Integer, List<Integer>> bySlot = new LinkedHashMap<>();
        for (int i = 0; i < items.size(); i++) {
            bySlot.computeIfAbsent(slot(items.get(i).keys().lock()), s -> new ArrayList<>()).add(i);
        }
        RBatch batch = redisson.createBatch();
        RScriptAsync batched = batch.getScript(StringCodec.INSTANCE);
        @SuppressWarnings("unchecked")
        CompletionStage<RenewReply>[] ordered = new CompletionStage[items.size()];
        for (List<Integer> indexes : bySlot.values()) {
            List<RenewItem> group = new ArrayList<>(indexes.size());
            indexes.forEach(i -> group.add(items.get(i)));
            List<CompletionStage<RenewReply>> groupReplies = split(renewMany(batched, group, epoch, delayMs), group.size());
            for (int j = 0; j < indexes.size(); j++) {
                ordered[indexes.get(j)] = groupReplies.get(j);
            }
        }
        CompletableFuture<?> executed = batch.executeAsync().toCompletableFuture();
        for (CompletionStage<RenewReply> reply : ordered) {
            // A batch that fails as a whole fails every renewal in it, also one whose own reply never completes.
            replies.add(executed.thenCompose(done -> reply));
        }
        return replies;
    }

    private static CompletionStage<List<Object>> renewMany(RScriptAsync on, List<RenewItem> items, boolean epoch, long delayMs) {
        List<Object> keys = new ArrayList<>(items.size() * 3);
        Object[] args = new Object[1 + items.size() * 3];
        args[0] = Long.toString(delayMs);
        int a = 1;
        for (RenewItem item : items) {
            keys.add(item.keys().lock());
            keys.add(item.keys().delay());
            keys.add(epoch ? item.keys().epochSeq() : item.keys().seq());
            args[a++] = item.holder();
            args[a++] = Long.toString(item.leaseMs());
            args[a++] = Long.toString(item.seqTtlMs());
        }
        return on.evalAsync(items.get(0).keys().lock(), RScript.Mode.READ_WRITE, RENEW_MANY, RScript.ReturnType.LIST,
                keys, args);
    }

    private static List<CompletionStage<RenewReply>> split(CompletionStage<List<Object>> reply, int count) {
        List<CompletionStage<RenewReply>> each = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int at = i + 2;
            each.add(reply.thenApply(r -> new RenewReply(toLong(r.get(at)) == 1L, micros(r, 0))));
        }
        return each;
    }

    /** The Cluster slot of a key, by its hash tag as Redis computes it. */
    static int slot(String key) {
        int open = key.indexOf('{');
        if (open >= 0) {
            int close = key.indexOf('}', open + 1);
            if (close > open + 1) {
                key = key.substring(open + 1, close);
            }
        }
        return CRC16.crc16(key.getBytes(StandardCharsets.UTF_8)) % 16384;
    }

    /** Clock floor: value is the token when acquired, else the lock's or delay's pttl. */
    public CompletionStage<AcquireReply> acquire(LeaseKeys keys, String holder, long leaseMs, long delayMs, long seqTtlMs) {
        CompletionStage<List<Object>> reply = script.evalAsync(keys.lock(), RScript.Mode.READ_WRITE, ACQUIRE,
                RScript.ReturnType.LIST, keys.all(), holder, Long.toString(leaseMs), Long.toString(delayMs),
                Long.toString(seqTtlMs));
        return reply.thenApply(r -> new AcquireReply(toLong(r.get(0)), toLong(r.get(1)), 0, micros(r, 2)));
    }

    /** Durable epoch: value and extra are {@code e} and {@code n} when acquired, the claim on {@link #NEED_EPOCH}. */
    public CompletionStage<AcquireReply> acquireWithEpoch(LeaseKeys keys, String holder, long leaseMs, long delayMs,
                                                         long seqTtlMs, long epoch, long claim, long freshClaim) {
        CompletionStage<List<Object>> reply = script.evalAsync(keys.lock(), RScript.Mode.READ_WRITE, ACQUIRE_EPOCH,
                RScript.ReturnType.LIST, keys.allWithEpoch(), holder, Long.toString(leaseMs), Long.toString(delayMs),
                Long.toString(seqTtlMs), epoch > 0 ? Long.toString(epoch) : "", claim > 0 ? Long.toString(claim) : "",
                Long.toString(freshClaim), Long.toString(EpochTokens.PER_EPOCH));
        return reply.thenApply(r -> new AcquireReply(toLong(r.get(0)), toLong(r.get(1)), toLong(r.get(2)), micros(r, 3)));
    }

    public CompletionStage<RenewReply> renew(LeaseKeys keys, boolean epoch, String holder, long leaseMs, long delayMs,
                                             long seqTtlMs) {
        List<Object> keyList = epoch ? List.of(keys.lock(), keys.delay(), keys.epochSeq()) : keys.all();
        CompletionStage<List<Object>> reply = script.evalAsync(keys.lock(), RScript.Mode.READ_WRITE, RENEW,
                RScript.ReturnType.LIST, keyList, holder,
                Long.toString(leaseMs), Long.toString(delayMs), Long.toString(seqTtlMs));
        return reply.thenApply(r -> new RenewReply(toLong(r.get(0)) == 1L, micros(r, 1)));
    }

    public CompletionStage<Boolean> release(LeaseKeys keys, String holder) {
        CompletionStage<Long> reply = script.evalAsync(keys.lock(), RScript.Mode.READ_WRITE, RELEASE,
                RScript.ReturnType.LONG, List.of(keys.lock(), keys.delay()), holder, keys.channel());
        return reply.thenApply(r -> r != null && r == 1L);
    }

    private static long micros(List<Object> reply, int at) {
        return toLong(reply.get(at)) * 1_000_000L + toLong(reply.get(at + 1));
    }

    private static long toLong(Object value) {
        return value instanceof Number n ? n.longValue() : Long.parseLong(String.valueOf(value));
    }
}
