package io.fenceguard.redis.springdata;

import io.fenceguard.redis.RedisScriptClient.Replicated;
import io.fenceguard.redis.RedisScriptClient.Reply;
import io.fenceguard.redis.internal.ScriptCache;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisPipelineException;
import org.springframework.data.redis.connection.ReturnType;

/**
 * A script followed by {@code WAIT replicas timeout}, pipelined on one connection of the factory that no other call
 * shares: WAIT counts the writes of its own connection, and it blocks that connection until the replicas answered,
 * so it never goes on the factory's shared connection, where it would hold up every other lease call. Works on any
 * factory through Spring's {@code RedisConnection} pipeline (with Lettuce, a pipelined connection is a dedicated one).
 * A few idle connections are kept for the next grants; each call runs on a thread of this class, the caller waits at
 * most its own time.
 */
final class ReplicatedScripts implements AutoCloseable {

    /** Idle connections kept between grants; more are opened while grants run side by side, and closed after. */
    private static final int IDLE = 2;

    private final RedisConnectionFactory factory;
    private final ScriptRunner runner;
    private final ExecutorService threads;
    private final ConcurrentLinkedDeque<RedisConnection> idle = new ConcurrentLinkedDeque<>();
    private volatile boolean closed;

    ReplicatedScripts(RedisConnectionFactory factory, ScriptRunner runner, String threadName) {
        this.factory = factory;
        this.runner = runner;
        ThreadPoolExecutor executor = new ThreadPoolExecutor(8, 8, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                r -> SpringDataRedisScriptClient.daemon(r, threadName));
        executor.allowCoreThreadTimeOut(true);
        this.threads = executor;
    }

    CompletableFuture<Replicated> run(String script, Reply reply, List<String> keys, List<String> args, int replicas,
                                      Duration timeout, long deadlineNanos) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
            return CompletableFuture.failedFuture(new TimeoutException("no time left for the call"));
        }
        try {
            return CompletableFuture.supplyAsync(() -> {
                if (System.nanoTime() - deadlineNanos >= 0) {
                    throw new CompletionException(
                            new TimeoutException("the call's time was up before a thread was free for it"));
                }
                return runOnConnection(script, reply, keys, args, replicas, timeout);
            }, threads).orTimeout(left, TimeUnit.NANOSECONDS);
        } catch (RuntimeException rejected) {  // closed
            return CompletableFuture.failedFuture(rejected);
        }
    }

    private Replicated runOnConnection(String script, Reply reply, List<String> keys, List<String> args, int replicas,
                                       Duration timeout) {
        RedisConnection connection = idle.pollFirst();
        if (connection == null) {
            connection = factory.getConnection();
        }
        boolean healthy = false;
        try {
            ReturnType type = reply == Reply.LIST ? ReturnType.MULTI : ReturnType.INTEGER;
            byte[][] keysAndArgs = keysAndArgs(keys, args);
            byte[] replicasArg = Integer.toString(replicas).getBytes(StandardCharsets.US_ASCII);
            byte[] timeoutArg = Long.toString(Math.max(1, timeout.toMillis())).getBytes(StandardCharsets.US_ASCII);
            List<Object> results;
            try {
                results = pipeline(connection, c -> c.scriptingCommands().evalSha(ScriptCache.sha1(script), type, keys.size(),
                        keysAndArgs), replicasArg, timeoutArg);
            } catch (RedisPipelineException e) {
                if (!noScript(e)) {
                    throw failure(e);
                }
                // Not in this server's cache (a restart, a failover): the script whole, once.
                results = pipeline(connection, c -> c.scriptingCommands().eval(
                        script.getBytes(StandardCharsets.UTF_8), type, keys.size(), keysAndArgs), replicasArg, timeoutArg);
            }
            healthy = true;
            return new Replicated(strings(results.get(0)), count(results.get(1)));
        } finally {
            if (healthy && !closed && !connection.isClosed() && idle.size() < IDLE) {
                idle.addFirst(connection);
            } else {
                connection.close();
            }
        }
    }

    private List<Object> pipeline(RedisConnection connection,
                                         java.util.function.Consumer<RedisConnection> script, byte[] replicas,
                                         byte[] timeout) {
        connection.openPipeline();
        try {
            script.accept(connection);
            runner.queueWait(connection, replicas, timeout);
        } catch (RuntimeException e) {
            try {
                connection.closePipeline();
            } catch (RuntimeException ignored) {
                // the first failure tells what went wrong
            }
            throw e;
        }
        return connection.closePipeline();
    }

    /**
     * The failure of the pipelined command itself, as Spring translated it (a connection failure, a timeout, a
     * READONLY reply during a failover), so that the caller tells a transient failure from another one.
     */
    private static RuntimeException failure(RedisPipelineException e) {
        for (Object result : e.getPipelineResult()) {
            if (result instanceof RuntimeException failed) {
                return failed;
            }
        }
        return e.getCause() instanceof RuntimeException cause ? cause : e;
    }

    private static boolean noScript(RedisPipelineException e) {
        for (Object result : e.getPipelineResult()) {
            for (Throwable t = result instanceof Throwable thrown ? thrown : null; t != null; t = t.getCause()) {
                if (String.valueOf(t.getMessage()).contains("NOSCRIPT")) {
                    return true;
                }
            }
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (String.valueOf(t.getMessage()).contains("NOSCRIPT")) {
                return true;
            }
        }
        return false;
    }

    private static byte[][] keysAndArgs(List<String> keys, List<String> args) {
        byte[][] out = new byte[keys.size() + args.size()][];
        int i = 0;
        for (String key : keys) {
            out[i++] = key.getBytes(StandardCharsets.UTF_8);
        }
        for (String arg : args) {
            out[i++] = arg.getBytes(StandardCharsets.UTF_8);
        }
        return out;
    }

    private static int count(Object reply) {
        Object value = strings(reply);
        return value instanceof Number n ? n.intValue() : Integer.parseInt(String.valueOf(value));
    }

    /** Bulk strings as text, as the lease scripts read them; integers and nesting as they are. */
    private static Object strings(Object reply) {
        if (reply instanceof byte[] b) {
            return new String(b, StandardCharsets.UTF_8);
        }
        if (reply instanceof List<?> list) {
            List<Object> each = new ArrayList<>(list.size());
            for (Object item : list) {
                each.add(strings(item));
            }
            return each;
        }
        return reply;
    }

    @Override
    public void close() {
        closed = true;
        threads.shutdownNow();
        for (RedisConnection connection; (connection = idle.pollFirst()) != null; ) {
            try {
                connection.close();
            } catch (RuntimeException e) {
                // the factory's connection, closing anyway
            }
        }
    }
}
