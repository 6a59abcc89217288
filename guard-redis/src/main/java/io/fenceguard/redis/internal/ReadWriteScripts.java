package io.fenceguard.redis.internal;

import io.fenceguard.redis.RedisScriptClient;

import io.fenceguard.core.LeaseMode;
import io.fenceguard.core.ResourceName;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * The Lua scripts of the fair read-write lease: each one atomic round trip over the keys of one resource
 * (one hash tag, so it works on Cluster too).
 *
 * <ul>
 *   <li>{@code holders}: hash holder → {@code W|token} or {@code R|token}; {@code expiry}: sorted set
 *       holder → deadline (Redis server ms). An expired holder is dropped by the next script.</li>
 *   <li>{@code queue}: sorted set {@code W|holder} / {@code R|holder} → ticket number (arrival order);
 *       {@code tickets}: the same members → deadline. A waiter refreshes its ticket on every poll; a waiter
 *       that died loses its place when its ticket runs out, so it never blocks the queue.</li>
 *   <li>{@code seq}: the last token, for reads and writes alike: {@code max(last + 1, Redis TIME in µs)},
 *       the same rule (and the same clock assumption) as the exclusive Redis lease.</li>
 * </ul>
 * A writer goes when nobody holds the resource and it is first in the queue; a reader goes when no
 * writer holds it and no writer is queued before it. So waiters are served in arrival order, readers
 * that arrive together share, and a writer is never overtaken by readers that came after it.
 */
public final class ReadWriteScripts {

    /** Drops expired holders and tickets; {@code now} in ms from the server's clock. */
    private static final String PURGE = """
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
            for _, h in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)) do
              redis.call('HDEL', KEYS[1], h)
              redis.call('ZREM', KEYS[2], h)
            end
            """;

    // KEYS: holders, expiry, queue, tickets, seq, ticket counter.
    // ARGV: holder, mode (W|R), lease ms, ticket ttl ms, seq ttl ms, wait (1: keep a place in the queue, 0: try once).
    // Returns {1, token} when granted, {0, 0} when not (yet).
    static final String ACQUIRE = PURGE + """
            for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now)) do
              redis.call('ZREM', KEYS[3], m)
              redis.call('ZREM', KEYS[4], m)
            end
            local mine = redis.call('HGET', KEYS[1], ARGV[1])
            if mine then
              return {1, tonumber(string.sub(mine, 3))}
            end
            local member = ARGV[2] .. '|' .. ARGV[1]
            if not redis.call('ZSCORE', KEYS[3], member) then
              redis.call('ZADD', KEYS[3], redis.call('INCR', KEYS[6]), member)
            end
            local rank = redis.call('ZRANK', KEYS[3], member)
            local holding = false
            local writing = false
            for _, v in ipairs(redis.call('HVALS', KEYS[1])) do
              holding = true
              if string.sub(v, 1, 1) == 'W' then writing = true end
            end
            local go
            if ARGV[2] == 'W' then
              go = (not holding) and rank == 0
            else
              go = not writing
              if go and rank > 0 then
                for _, m in ipairs(redis.call('ZRANGE', KEYS[3], 0, rank - 1)) do
                  if string.sub(m, 1, 1) == 'W' then
                    go = false
                    break
                  end
                end
              end
            end
            local ticketTtl = tonumber(ARGV[4])
            if not go then
              if ARGV[6] == '1' then
                redis.call('ZADD', KEYS[4], now + ticketTtl, member)
                redis.call('PEXPIRE', KEYS[3], ticketTtl)
                redis.call('PEXPIRE', KEYS[4], ticketTtl)
                redis.call('PEXPIRE', KEYS[6], ticketTtl)
              else
                redis.call('ZREM', KEYS[3], member)
                redis.call('ZREM', KEYS[4], member)
              end
              return {0, 0}
            end
            redis.call('ZREM', KEYS[3], member)
            redis.call('ZREM', KEYS[4], member)
            local floor = tonumber(t[1]) * 1000000 + tonumber(t[2])
            local last = tonumber(redis.call('GET', KEYS[5]) or '0')
            local token = math.max(last + 1, floor)
            local text = string.format('%.0f', token)
            local lease = tonumber(ARGV[3])
            redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. '|' .. text)
            redis.call('ZADD', KEYS[2], now + lease, ARGV[1])
            if redis.call('PTTL', KEYS[1]) < lease then
              redis.call('PEXPIRE', KEYS[1], lease)
              redis.call('PEXPIRE', KEYS[2], lease)
            end
            redis.call('SET', KEYS[5], text, 'PX', tonumber(ARGV[5]))
            return {1, token}
            """;

    // KEYS: holders, expiry, seq. ARGV: holder, lease ms, seq ttl ms. Returns 1 when renewed, 0 when not held.
    static final String RENEW = PURGE + """
            if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
              local lease = tonumber(ARGV[2])
              redis.call('ZADD', KEYS[2], now + lease, ARGV[1])
              if redis.call('PTTL', KEYS[1]) < lease then
                redis.call('PEXPIRE', KEYS[1], lease)
                redis.call('PEXPIRE', KEYS[2], lease)
              end
              redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[3]))
              return 1
            end
            return 0
            """;

    // KEYS: holders, expiry. ARGV: holder. Compare-and-delete of the holder's own entry.
    static final String RELEASE = PURGE + """
            if redis.call('HDEL', KEYS[1], ARGV[1]) == 1 then
              redis.call('ZREM', KEYS[2], ARGV[1])
              return 1
            end
            return 0
            """;

    // KEYS: queue, tickets. ARGV: member. A waiter that gives up leaves its place.
    static final String ABANDON = """
            redis.call('ZREM', KEYS[1], ARGV[1])
            redis.call('ZREM', KEYS[2], ARGV[1])
            return 1
            """;

    /** The keys of one resource. */
    public record Keys(String holders, String expiry, String queue, String tickets, String seq, String ticketCounter) {

        public static Keys of(String prefix, ResourceName resource) {
            String base = prefix + "rw:{" + resource.value() + "}:";
            return new Keys(base + "holders", base + "expiry", base + "queue", base + "tickets", base + "seq",
                    base + "ticket");
        }
    }

    /** Every script of the read-write lease, for loading them before their first use. */
    public static List<String> all() {
        return List.of(ACQUIRE, RENEW, RELEASE, ABANDON);
    }

    private final RedisScriptClient client;

    public ReadWriteScripts(RedisScriptClient client) {
        this.client = client;
    }

    private static String code(LeaseMode mode) {
        return mode == LeaseMode.SHARED ? "R" : "W";
    }

    /** The token when granted, else 0. */
    /** The token granted, or 0 when not granted (yet). */
    /** An acquire's answer: the token when granted (0 when not yet), and how many replicas acknowledged it. */
    public record Answer(long token, int acknowledged) {
    }

    /**
     * One try; with {@code replicas} above 0, followed by {@code WAIT replicas replicaTimeout} on the same connection,
     * whose answer comes with the grant. The caller waits until {@code deadlineNanos}.
     */
    public CompletionStage<Answer> acquire(Keys keys, String holder, LeaseMode mode, long leaseMs, long ticketTtlMs,
                                           long seqTtlMs, boolean queue, int replicas, java.time.Duration replicaTimeout,
                                           long deadlineNanos) {
        List<String> keyList = List.of(keys.holders(), keys.expiry(), keys.queue(), keys.tickets(), keys.seq(),
                keys.ticketCounter());
        List<String> args = List.of(holder, code(mode), Long.toString(leaseMs), Long.toString(ticketTtlMs),
                Long.toString(seqTtlMs), queue ? "1" : "0");
        if (replicas <= 0) {
            return client.evalAsync(ACQUIRE, RedisScriptClient.Reply.LIST, keyList, args,
                    Math.max(1, deadlineNanos - System.nanoTime())).thenApply(r -> answer(r, 0));
        }
        return client.evalReplicated(ACQUIRE, RedisScriptClient.Reply.LIST, keyList, args, replicas, replicaTimeout,
                deadlineNanos).thenApply(r -> answer(r.answer(), r.replicas()));
    }

    private static Answer answer(Object reply, int acknowledged) {
        List<?> list = (List<?>) reply;
        return new Answer(toLong(list.get(0)) == 1 ? toLong(list.get(1)) : 0L, acknowledged);
    }

    public CompletionStage<Boolean> renew(Keys keys, String holder, long leaseMs, long seqTtlMs, long timeoutNanos) {
        return client.evalAsync(RENEW, RedisScriptClient.Reply.LONG, List.of(keys.holders(), keys.expiry(), keys.seq()),
                List.of(holder, Long.toString(leaseMs), Long.toString(seqTtlMs)), timeoutNanos).thenApply(ReadWriteScripts::isOne);
    }

    public CompletionStage<Boolean> release(Keys keys, String holder, long timeoutNanos) {
        return client.evalAsync(RELEASE, RedisScriptClient.Reply.LONG, List.of(keys.holders(), keys.expiry()),
                List.of(holder), timeoutNanos).thenApply(ReadWriteScripts::isOne);
    }

    public void abandon(Keys keys, String holder, LeaseMode mode, long timeoutNanos) {
        // Waits at most one call's time: a place not left lapses by itself.
        try {
            client.evalAsync(ABANDON, RedisScriptClient.Reply.LONG, List.of(keys.queue(), keys.tickets()),
                    List.of(code(mode) + "|" + holder), timeoutNanos).toCompletableFuture().join();
        } catch (java.util.concurrent.CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    private static boolean isOne(Object value) {
        return value != null && toLong(value) == 1L;
    }

    private static long toLong(Object value) {
        return value instanceof Number n ? n.longValue() : Long.parseLong(String.valueOf(value));
    }
}
