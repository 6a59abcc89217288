package io.fenceguard.redis.jedis;

import io.fenceguard.redis.RedisScriptClient;
import io.fenceguard.redis.internal.ScriptCache;
import io.fenceguard.redis.internal.ChannelListeners;
import io.fenceguard.redis.internal.Timeouts;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
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

    private static final Logger log = LoggerFactory.getLogger(JedisScriptClient.class);
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final Pool<Jedis> pool;
    private final ExecutorService io;
    private final Channels channels = new Channels();

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

    /**
     * One script on one connection, its reads bounded by {@code timeoutNanos}; loaded again when Redis lost it. A
     * connection broken by a timeout goes back to the pool from an I/O thread: the pool may take its time over it
     * (seconds, on a frozen server), which is not the caller's.
     */
    private Object run(String script, List<String> keys, List<String> args, long timeoutNanos) {
        Jedis jedis = pool.getResource();
        var connection = jedis.getConnection();
        try {
            connection.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(timeoutNanos))));
            try {
                return jedis.evalsha(ScriptCache.sha1(script), keys, args);
            } catch (JedisNoScriptException e) {
                return jedis.eval(script, keys, args);
            }
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
        return onIoThread(() -> {
            Jedis jedis = pool.getResource();
            var connection = jedis.getConnection();
            try {
                connection.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(left))));
                Object answer;
                try {
                    answer = jedis.evalsha(ScriptCache.sha1(script), keys, args);
                } catch (JedisNoScriptException e) {
                    answer = jedis.eval(script, keys, args);
                }
                long acknowledged = jedis.waitReplicas(replicas, Math.max(1, timeout.toMillis()));
                return new Replicated(answer, (int) acknowledged);
            } finally {
                if (connection.isConnected() && !connection.isBroken()) {
                    connection.rollbackTimeout();
                    jedis.close();
                } else {
                    try {
                        io.execute(jedis::close);
                    } catch (RuntimeException closed) {
                        jedis.close();
                    }
                }
            }
        });
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

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** The release channels: one subscribed connection, a reader thread, listeners by channel. */
    private final class Channels implements Runnable {
        /** Keeps the connection subscribed while no waiter is (Redis needs one channel to subscribe to). */
        private final String idle = "fenceguard:jedis:" + UUID.randomUUID();
        private final ChannelListeners listeners = new ChannelListeners();
        /**
         * Guards the fields below. A lock, not a monitor: a waiter's thread writes to the socket while holding it,
         * and a virtual thread blocked inside a monitor keeps its carrier (JDK 21 to 23).
         */
        private final ReentrantLock lock = new ReentrantLock();
        private JedisPubSub current;
        private Jedis connection;
        private Thread reader;
        private boolean closed;

        Subscription add(String channel, Runnable onMessage) {
            CompletableFuture<Void> confirmed;
            lock.lock();
            try {
                if (closed) {
                    throw new IllegalStateException("the Jedis lease client is closed");
                }
                confirmed = listeners.add(channel, onMessage);
                if (reader == null) {
                    reader = daemon(this, "fenceguard-jedis-channels");
                    reader.start();
                } else if (current != null && !listeners.isSubscribed(channel)) {
                    try {
                        current.subscribe(channel);
                    } catch (RuntimeException e) {
                        // the reader reconnects and subscribes every channel with listeners
                    }
                }
            } finally {
                lock.unlock();
            }
            return ChannelListeners.subscription(confirmed, () -> remove(channel, onMessage));
        }

        private void remove(String channel, Runnable onMessage) {
            lock.lock();
            try {
                if (listeners.remove(channel, onMessage) && current != null && listeners.left(channel)) {
                    try {
                        current.unsubscribe(channel);
                    } catch (RuntimeException e) {
                        // gone with the connection
                    }
                }
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void run() {
            long pauseMs = 50;
            while (true) {
                Jedis jedis;
                JedisPubSub pubSub = new JedisPubSub() {
                    @Override
                    public void onMessage(String channel, String message) {
                        listeners.deliver(channel);
                    }

                    @Override
                    public void onSubscribe(String channel, int count) {
                        live(this);
                        listeners.confirmed(channel);
                    }
                };
                String[] names;
                // Borrowed outside the lock: a drained pool may keep this thread waiting, never a waiter that
                // subscribes or leaves meanwhile.
                try {
                    jedis = pool.getResource();
                } catch (RuntimeException e) {
                    jedis = null;
                }
                lock.lock();
                try {
                    if (closed) {
                        if (jedis != null) {
                            jedis.close();
                        }
                        return;
                    }
                    connection = jedis;
                    List<String> all = listeners.channels();
                    all.add(idle);
                    names = all.toArray(String[]::new);
                } finally {
                    lock.unlock();
                }
                if (jedis != null) {
                    try {
                        jedis.getConnection().setTimeoutInfinite();
                        jedis.subscribe(pubSub, names);  // returns when unsubscribed from everything
                        pauseMs = 50;
                    } catch (RuntimeException e) {
                        log.debug("release channel connection failed; waiters wake when holders' time is up until it "
                                + "is back: {}", e.toString());
                    } finally {
                        lock.lock();
                        try {
                            current = null;
                            connection = null;
                            listeners.disconnected();
                        } finally {
                            lock.unlock();
                        }
                        try {
                            jedis.close();
                        } catch (RuntimeException e) {
                            // broken already
                        }
                    }
                }
                try {
                    Thread.sleep(pauseMs);
                } catch (InterruptedException e) {
                    return;
                }
                pauseMs = Math.min(1_000, pauseMs * 2);
            }
        }

        /** The connection is subscribed: channels added since its names were taken are subscribed now. */
        private void live(JedisPubSub pubSub) {
            lock.lock();
            try {
                if (current == pubSub || closed) {
                    return;
                }
                current = pubSub;
                List<String> missing = listeners.unsubscribed();
                if (!missing.isEmpty()) {
                    pubSub.subscribe(missing.toArray(String[]::new));
                }
            } finally {
                lock.unlock();
            }
        }

        void close() {
            lock.lock();
            try {
                closed = true;
                if (connection != null) {
                    try {
                        connection.getConnection().disconnect();
                    } catch (RuntimeException e) {
                        // closing anyway
                    }
                }
                if (reader != null) {
                    reader.interrupt();
                }
            } finally {
                lock.unlock();
            }
        }
    }
}
