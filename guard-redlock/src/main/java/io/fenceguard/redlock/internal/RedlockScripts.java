package io.fenceguard.redlock.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The Lua scripts of the quorum lock, each one atomic step on one master, and the fan-out that runs a
 * step on every master at once and collects the answers that arrive within the master timeout.
 *
 * <p>Per resource and master: {@code lock} (the holder id, with the lease as its expiry) and
 * {@code token} (the highest token this master has been told of; no expiry, so that it outlives every
 * lock).
 */
public final class RedlockScripts {

    // KEYS: lock, token. ARGV: holder, lease ms.
    // Returns {1, highest token seen} when locked for the holder, {0, highest token seen, lock pttl} when another has it.
    static final String LOCK = """
            local current = redis.call('GET', KEYS[1])
            local seen = tonumber(redis.call('GET', KEYS[2]) or '0')
            if current == false or current == ARGV[1] then
              redis.call('SET', KEYS[1], ARGV[1], 'PX', tonumber(ARGV[2]))
              return {1, seen}
            end
            return {0, seen, redis.call('PTTL', KEYS[1])}
            """;

    // KEYS: lock, token. ARGV: holder, token.
    // Raises the master's highest token to the new one (on every master, locked or not); returns whether the
    // lock is still the holder's there.
    static final String COMMIT = """
            local token = tonumber(ARGV[2])
            if token > tonumber(redis.call('GET', KEYS[2]) or '0') then
              redis.call('SET', KEYS[2], ARGV[2])
            end
            if redis.call('GET', KEYS[1]) == ARGV[1] then
              return 1
            end
            return 0
            """;

    // KEYS: lock. ARGV: holder, lease ms. Extends only the holder's own lock; never takes a free one.
    static final String RENEW = """
            if redis.call('GET', KEYS[1]) == ARGV[1] then
              redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
              return 1
            end
            return 0
            """;

    // KEYS: lock. ARGV: holder. Compare-and-delete.
    static final String RELEASE = """
            if redis.call('GET', KEYS[1]) == ARGV[1] then
              redis.call('DEL', KEYS[1])
              return 1
            end
            return 0
            """;

    private final List<RScript> masters;
    private final long timeoutNanos;

    public RedlockScripts(List<RedissonClient> masters, Duration masterTimeout) {
        List<RScript> scripts = new ArrayList<>(masters.size());
        for (RedissonClient m : masters) {
            scripts.add(m.getScript(StringCodec.INSTANCE));
        }
        this.masters = List.copyOf(scripts);
        this.timeoutNanos = masterTimeout.toNanos();
    }

    public int size() {
        return masters.size();
    }

    /** One answer per master, {@code null} where it failed or did not answer within the master timeout. */
    public List<List<Long>> lock(RedlockKeys keys, String holder, long leaseMs) {
        return all(keys, LOCK, RScript.ReturnType.LIST, List.of(keys.lock(), keys.token()), holder, Long.toString(leaseMs));
    }

    public List<Long> commit(RedlockKeys keys, String holder, long token) {
        return all(keys, COMMIT, RScript.ReturnType.LONG, List.of(keys.lock(), keys.token()), holder, Long.toString(token));
    }

    public List<Long> release(RedlockKeys keys, String holder) {
        return all(keys, RELEASE, RScript.ReturnType.LONG, List.of(keys.lock()), holder);
    }

    /** Sends the renewal to every master; each stage completes within the master timeout (or exceptionally). */
    public List<CompletableFuture<Long>> renewAsync(RedlockKeys keys, String holder, long leaseMs) {
        return send(keys, RENEW, RScript.ReturnType.LONG, List.of(keys.lock()), holder, Long.toString(leaseMs));
    }

    private <T> List<T> all(RedlockKeys keys, String script, RScript.ReturnType type, List<Object> keyList,
                            Object... args) {
        List<CompletableFuture<T>> sent = send(keys, script, type, keyList, args);
        long deadline = System.nanoTime() + timeoutNanos;
        List<T> answers = new ArrayList<>(sent.size());
        for (CompletableFuture<T> f : sent) {
            T answer = null;
            try {
                long left = Math.max(0, deadline - System.nanoTime());
                answer = f.get(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                // Every request is already sent; the caller sees the flag and stops after this step.
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                // No answer in time, or the master refused: it counts as a "no".
            }
            answers.add(answer);
        }
        return answers;
    }

    private <T> List<CompletableFuture<T>> send(RedlockKeys keys, String script, RScript.ReturnType type,
                                                List<Object> keyList, Object... args) {
        List<CompletableFuture<T>> sent = new ArrayList<>(masters.size());
        for (RScript master : masters) {
            CompletableFuture<T> f;
            try {
                CompletionStage<T> reply = master.evalAsync(keys.lock(), RScript.Mode.READ_WRITE, script, type, keyList, args);
                f = reply.toCompletableFuture();
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            sent.add(f.orTimeout(timeoutNanos, TimeUnit.NANOSECONDS));
        }
        return sent;
    }
}
