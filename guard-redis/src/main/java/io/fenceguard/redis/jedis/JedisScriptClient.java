package io.fenceguard.redis.jedis;

import io.fenceguard.redis.RedisScriptClient;
import io.fenceguard.redis.internal.ScriptCache;
import io.fenceguard.redis.internal.Timeouts;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.util.Pool;

/**
 * Scripts and release channels through a Jedis {@link Pool} (a {@code JedisPool} or {@code JedisSentinelPool})
 * that the application owns. A caller's script runs on the caller's own thread when the pool has an idle
 * connection, with the socket's read timeout set to the time the caller has left: no hand-off between threads,
 * which is what a lease call on a fast link mostly costs. Otherwise (a connection would have to be opened, which
 * no read timeout bounds) and for renewals and background releases, it runs on one of two I/O threads of this
 * client while the caller waits at most its time. Release channels share one subscribed connection of the pool,
 * read by a thread of their own, reconnected after a failure.
 */
public final class JedisScriptClient implements RedisScriptClient {

    private static final AtomicInteger THREADS = new AtomicInteger();

    private final Pool<Jedis> pool;
    private final ExecutorService io;
    private final JedisReleaseChannels channels;

    /**
     * On {@code pool} ({@code JedisPool} for one Redis, {@code JedisSentinelPool} for Sentinel; not Cluster), which
     * stays the application's: {@link #close()} stops this client's threads and gives back its subscribed
     * connection, and leaves the pool open.
     *
     * <pre>{@code
     * LeaseManager guard = LeaseManager.of(RedisLeaseProvider.of(JedisScriptClient.of(pool), RedisLeaseConfig.defaults()));
     * }</pre>
     */
    public static JedisScriptClient of(Pool<Jedis> pool) {
        return new JedisScriptClient(java.util.Objects.requireNonNull(pool, "pool"));
    }

    private JedisScriptClient(Pool<Jedis> pool) {
        this.pool = pool;
        this.channels = new JedisReleaseChannels(pool);
        ThreadPoolExecutor executor = new ThreadPoolExecutor(2, 2, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                r -> daemon(r, "fenceguard-jedis-io-" + THREADS.incrementAndGet()));
        executor.allowCoreThreadTimeOut(true);
        this.io = executor;
    }

    @Override
    public CompletionStage<Object> eval(String script, Reply reply, List<String> keys, List<String> args, long deadlineNanos) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
            return CompletableFuture.failedFuture(new TimeoutException("no time left for the call"));
        }
        if (pool.getNumIdle() > 0) {
            try {
                return CompletableFuture.completedFuture(run(script, keys, args, left));
            } catch (JedisException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        return onIoThread(() -> run(script, keys, args, left));
    }

    @Override
    public CompletionStage<Object> evalAsync(String script, Reply reply, List<String> keys, List<String> args,
                                             long timeoutNanos) {
        return onIoThread(() -> run(script, keys, args, timeoutNanos)).orTimeout(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public List<CompletionStage<Object>> evalAllAsync(String script, List<List<String>> keys, List<List<String>> args,
                                                      long timeoutNanos) {
        List<CompletionStage<Object>> replies = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            replies.add(evalAsync(script, Reply.LIST, keys.get(i), args.get(i), timeoutNanos));
        }
        return replies;
    }

    private <T> CompletableFuture<T> onIoThread(Supplier<T> call) {
        try {
            return CompletableFuture.supplyAsync(call, io);
        } catch (RuntimeException rejected) { // closed
            return CompletableFuture.failedFuture(rejected);
        }
    }

    /** One script on one connection, its reads bounded by {@code timeoutNanos}; loaded again when Redis lost it. */
    private Object run(String script, List<String> keys, List<String> args, long timeoutNanos) {
        return onConnection(timeoutNanos, jedis -> evalLoaded(jedis, script, keys, args));
    }

    private static Object evalLoaded(Jedis jedis, String script, List<String> keys, List<String> args) {
        try {
            return jedis.evalsha(ScriptCache.sha1(script), keys, args);
        } catch (JedisNoScriptException e) {
            return jedis.eval(script, keys, args);
        }
    }

    /**
     * {@code call} on a connection of the pool whose reads are bounded by {@code timeoutNanos}. A connection broken
     * by a timeout goes back to the pool from an I/O thread: the pool may take its time over it (seconds, on a
     * frozen server), which is not the caller's.
     */
    private <T> T onConnection(long timeoutNanos, Function<Jedis, T> call) {
        Jedis jedis = pool.getResource();
        var connection = jedis.getConnection();
        try {
            connection.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(timeoutNanos))));
            return call.apply(jedis);
        } finally {
            if (connection.isConnected() && !connection.isBroken()) {
                connection.rollbackTimeout();  // the pool's connection goes back with its own timeout
                jedis.close();
            } else {
                try {
                    io.execute(jedis::close);
                } catch (RuntimeException closed) {
                    jedis.close();
                }
            }
        }
    }

    /** The script, then {@code WAIT} on the same pooled connection. */
    @Override
    public CompletionStage<Replicated> evalReplicated(String script, Reply reply, List<String> keys, List<String> args,
                                                      int replicas, java.time.Duration timeout, long deadlineNanos) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
            return CompletableFuture.failedFuture(new TimeoutException("no time left for the call"));
        }
        return onIoThread(() -> onConnection(left, jedis -> {
            Object answer = evalLoaded(jedis, script, keys, args);
            long acknowledged = jedis.waitReplicas(replicas, Math.max(1, timeout.toMillis()));
            return new Replicated(answer, (int) acknowledged);
        }));
    }

    @Override
    public boolean waitsForReplicas() {
        return true;
    }

    @Override
    public String name() {
        return "Jedis";
    }

    /** {@code SCRIPT LOAD} of each script, pipelined on one connection of the pool, on an I/O thread. */
    @Override
    public CompletionStage<?> load(List<String> scripts) {
        try {
            return CompletableFuture.runAsync(() -> {
                try (Jedis jedis = pool.getResource()) {
                    // Pipelined: one round trip for all of them, also on a long link.
                    redis.clients.jedis.Pipeline pipeline = jedis.pipelined();
                    List<redis.clients.jedis.Response<String>> loaded = new java.util.ArrayList<>(scripts.size());
                    for (String script : scripts) {
                        // The sample key only routes a Cluster pipeline; it is not sent.
                        loaded.add(pipeline.scriptLoad(script, "fenceguard"));
                    }
                    pipeline.sync();
                    for (redis.clients.jedis.Response<String> answer : loaded) {
                        answer.get();  // a load the server refused fails them all
                    }
                }
            }, io);
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            return CompletableFuture.failedFuture(closed);
        }
    }

    @Override
    public boolean cluster() {
        return false;
    }

    @Override
    public int slot(String key) {
        return redis.clients.jedis.util.JedisClusterCRC16.getSlot(key);
    }

    @Override
    public Subscription subscribe(String channel, Runnable onMessage) {
        return channels.add(channel, onMessage);
    }

    @Override
    public boolean isRedisFailure(Throwable error) {
        return error instanceof JedisException || error instanceof TimeoutException;
    }

    @Override
    public boolean isTransient(Throwable error) {
        if (error instanceof JedisConnectionException || error instanceof TimeoutException) {
            return true;
        }
        String message = error instanceof JedisDataException ? String.valueOf(error.getMessage()) : "";
        return message.startsWith("READONLY") || message.startsWith("LOADING") || message.startsWith("MASTERDOWN")
                || message.startsWith("TRYAGAIN");
    }

    @Override
    public boolean isTimeout(Throwable error) {
        return Timeouts.timedOut(error);
    }

    @Override
    public void close() {
        channels.close();
        io.shutdownNow();
    }

    static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }
}
