package io.fenceguard.redis.internal;

import io.fenceguard.redis.RedisScriptClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

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

    // KEYS: lock, delay, seq, given-up marker of this holder. ARGV: holder, lease ms, lock-delay ms, seq ttl ms.
    // A holder whose acquire gave up never gets the lock from a request of it that Redis runs late.
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
            if redis.call('EXISTS', KEYS[4]) == 1 then
              return {0, 0, now[1], now[2]}
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

    // KEYS: lock, delay, eseq, eclaim, given-up marker of this holder. ARGV: holder, lease ms, lock-delay ms, seq ttl ms, epoch or '',
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
            if redis.call('EXISTS', KEYS[5]) == 1 then
              return {0, 0, 0, now[1], now[2]}
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

    // KEYS: lock, delay, given-up marker. ARGV: holder, channel, marker ttl ms.
    // For an acquire that gave up without an answer: marks the holder as given up (its request may still run,
    // later, on a connection the client closed) and releases what an earlier run of it granted.
    static final String GIVE_UP = """
            redis.call('SET', KEYS[3], '1', 'PX', tonumber(ARGV[3]))
            if redis.call('HGET', KEYS[1], 'holder') == ARGV[1] then
              redis.call('DEL', KEYS[1], KEYS[2])
              redis.call('PUBLISH', ARGV[2], ARGV[1])
              return 1
            end
            return 0
            """;

    /**
     * An acquire script's answer: outcome, its values, the server's time in µs, and how many replicas acknowledged
     * it ({@code -1}: not asked).
     */
    public record AcquireReply(long status, long value, long extra, long serverMicros, int acknowledged) {
    }

    /** A renewal's answer. */
    public record RenewReply(boolean ours, long serverMicros) {
    }

    /** Every script of the exclusive lease, for loading them before their first use. */
    public static List<String> all() {
        return List.of(ACQUIRE, ACQUIRE_EPOCH, RENEW, RENEW_MANY, RELEASE, GIVE_UP);
    }

    /** The replicas connected to the master of {@code KEYS[1]} ({@code RedisScriptClient.connectedReplicas}). */
    public static final String CONNECTED_REPLICAS = "local info = redis.call('INFO', 'replication') "
            + "return tonumber(string.match(info, 'connected_slaves:(%d+)')) or 0";

    /** What the exclusive provider sends ahead of first use: the lease scripts and the epoch-source record read at start. */
    public static List<String> atStart() {
        List<String> scripts = new ArrayList<>(all());
        scripts.add(EpochSourceRecord.RECORD);
        scripts.add(EpochSourceRecord.NOTE_EPOCH);
        return List.copyOf(scripts);
    }

    /** One lease of a {@link #renewAll}. */
    public record RenewItem(LeaseKeys keys, String holder, long leaseMs, long seqTtlMs) {
    }

    private final RedisScriptClient client;

    public RedisLeaseScripts(RedisScriptClient client) {
        this.client = client;
    }

    /**
     * Renews many leases in as few calls as the topology allows: on one Redis (single, sentinel,
     * replicated) one script per {@link #RENEWALS_PER_CALL} leases; on a Cluster, where a script touches
     * one slot only, one script per slot, all of them sent in one pipeline per node. One answer per item,
     * given up after {@code timeoutNanos}.
     */
    public List<CompletionStage<RenewReply>> renewAll(List<RenewItem> items, boolean epoch, long delayMs, long timeoutNanos) {
        List<List<RenewItem>> groups = new ArrayList<>();
        if (!client.cluster()) {
            for (int from = 0; from < items.size(); from += RENEWALS_PER_CALL) {
                groups.add(items.subList(from, Math.min(items.size(), from + RENEWALS_PER_CALL)));
            }
        } else {
            Map<Integer, List<RenewItem>> bySlot = new LinkedHashMap<>();
            for (RenewItem item : items) {
                bySlot.computeIfAbsent(client.slot(item.keys().lock()), s -> new ArrayList<>()).add(item);
            }
            groups.addAll(bySlot.values());
        }
        List<List<String>> keys = new ArrayList<>(groups.size());
        List<List<String>> args = new ArrayList<>(groups.size());
        for (List<RenewItem> group : groups) {
            List<String> k = new ArrayList<>(group.size() * 3);
            List<String> a = new ArrayList<>(1 + group.size() * 3);
            a.add(Long.toString(delayMs));
            for (RenewItem item : group) {
                k.add(item.keys().lock());
                k.add(item.keys().delay());
                k.add(epoch ? item.keys().epochSeq() : item.keys().seq());
                a.add(item.holder());
                a.add(Long.toString(item.leaseMs()));
                a.add(Long.toString(item.seqTtlMs()));
            }
            keys.add(k);
            args.add(a);
        }
        List<CompletionStage<Object>> groupReplies = client.evalAllAsync(RENEW_MANY, keys, args, timeoutNanos);
        Map<RenewItem, CompletionStage<RenewReply>> byItem = new java.util.IdentityHashMap<>(items.size());
        for (int g = 0; g < groups.size(); g++) {
            List<RenewItem> group = groups.get(g);
            CompletionStage<Object> reply = groupReplies.get(g);
            for (int i = 0; i < group.size(); i++) {
                int at = i + 2;
                byItem.put(group.get(i), reply.thenApply(r -> {
                    List<?> list = (List<?>) r;
                    return new RenewReply(toLong(list.get(at)) == 1L, micros(list, 0));
                }));
            }
        }
        List<CompletionStage<RenewReply>> replies = new ArrayList<>(items.size());
        for (RenewItem item : items) {
            replies.add(byItem.get(item));
        }
        return replies;
    }

    /** Clock floor: value is the token when acquired, else the lock's or delay's pttl. */
    public CompletionStage<AcquireReply> acquire(LeaseKeys keys, String holder, long leaseMs, long delayMs, long seqTtlMs,
                                                 int replicas, Duration replicaTimeout, long deadlineNanos) {
        return eval(ACQUIRE, keys.withGivenUp(keys.all(), holder), List.of(holder, Long.toString(leaseMs),
                        Long.toString(delayMs), Long.toString(seqTtlMs)), replicas, replicaTimeout, deadlineNanos,
                (list, acknowledged) -> new AcquireReply(toLong(list.get(0)), toLong(list.get(1)), 0, micros(list, 2),
                        acknowledged));
    }

    /** The script, followed by {@code WAIT replicas} when {@code replicas} is positive. */
    private CompletionStage<AcquireReply> eval(String script, List<String> keys, List<String> args, int replicas,
                                               Duration replicaTimeout, long deadlineNanos,
                                               java.util.function.BiFunction<List<?>, Integer, AcquireReply> reply) {
        if (replicas <= 0) {
            return client.eval(script, RedisScriptClient.Reply.LIST, keys, args, deadlineNanos)
                    .thenApply(r -> reply.apply((List<?>) r, -1));
        }
        return client.evalReplicated(script, RedisScriptClient.Reply.LIST, keys, args, replicas, replicaTimeout,
                deadlineNanos).thenApply(r -> reply.apply((List<?>) r.answer(), r.replicas()));
    }

    /** Durable epoch: value and extra are {@code e} and {@code n} when acquired, the claim on {@link #NEED_EPOCH}. */
    public CompletionStage<AcquireReply> acquireWithEpoch(LeaseKeys keys, String holder, long leaseMs, long delayMs,
                                                         long seqTtlMs, long epoch, long claim, long freshClaim,
                                                         int replicas, Duration replicaTimeout, long deadlineNanos) {
        return eval(ACQUIRE_EPOCH, keys.withGivenUp(keys.allWithEpoch(), holder), List.of(holder,
                        Long.toString(leaseMs), Long.toString(delayMs), Long.toString(seqTtlMs),
                        epoch > 0 ? Long.toString(epoch) : "", claim > 0 ? Long.toString(claim) : "",
                        Long.toString(freshClaim), Long.toString(EpochTokens.PER_EPOCH)), replicas, replicaTimeout,
                deadlineNanos, (list, acknowledged) -> new AcquireReply(toLong(list.get(0)), toLong(list.get(1)),
                        toLong(list.get(2)), micros(list, 3), acknowledged));
    }

    /** A renewal sent without blocking the caller, given up after {@code timeoutNanos}. */
    public CompletionStage<RenewReply> renew(LeaseKeys keys, boolean epoch, String holder, long leaseMs, long delayMs,
                                             long seqTtlMs, long timeoutNanos) {
        List<String> keyList = epoch ? List.of(keys.lock(), keys.delay(), keys.epochSeq()) : keys.all();
        return client.evalAsync(RENEW, RedisScriptClient.Reply.LIST, keyList, List.of(holder, Long.toString(leaseMs),
                        Long.toString(delayMs), Long.toString(seqTtlMs)), timeoutNanos)
                .thenApply(r -> {
                    List<?> list = (List<?>) r;
                    return new RenewReply(toLong(list.get(0)) == 1L, micros(list, 1));
                });
    }

    /** A release the caller waits for until {@code deadlineNanos}. */
    public CompletionStage<Boolean> release(LeaseKeys keys, String holder, long deadlineNanos) {
        return client.eval(RELEASE, RedisScriptClient.Reply.LONG, List.of(keys.lock(), keys.delay()),
                List.of(holder, keys.channel()), deadlineNanos).thenApply(RedisLeaseScripts::released);
    }

    /** A release sent without blocking the caller, given up after {@code timeoutNanos}. */
    public CompletionStage<Boolean> releaseAsync(LeaseKeys keys, String holder, long timeoutNanos) {
        return client.evalAsync(RELEASE, RedisScriptClient.Reply.LONG, List.of(keys.lock(), keys.delay()),
                List.of(holder, keys.channel()), timeoutNanos).thenApply(RedisLeaseScripts::released);
    }

    /** After an acquire gave up: its holder never gets the lock from a late run of it ({@link #GIVE_UP}). */
    public CompletionStage<Boolean> giveUp(LeaseKeys keys, String holder, long markerTtlMs, long timeoutNanos) {
        return client.evalAsync(GIVE_UP, RedisScriptClient.Reply.LONG, List.of(keys.lock(), keys.delay(), keys.givenUp(holder)),
                List.of(holder, keys.channel(), Long.toString(markerTtlMs)), timeoutNanos).thenApply(RedisLeaseScripts::released);
    }

    private static boolean released(Object reply) {
        return reply != null && toLong(reply) == 1L;
    }

    private static long micros(List<?> reply, int at) {
        return toLong(reply.get(at)) * 1_000_000L + toLong(reply.get(at + 1));
    }

    private static long toLong(Object value) {
        return value instanceof Number n ? n.longValue() : Long.parseLong(String.valueOf(value));
    }
}
