package io.fenceguard.redis.springdata;

import io.fenceguard.redis.RedisScriptClient.Reply;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Scripts through any factory's blocking {@code RedisConnection} (Jedis's, for one), by Spring's script executor
 * (EVALSHA, EVAL on NOSCRIPT, replies as text): each on a thread of the client's small executor, while the caller
 * waits at most its time. A call still queued when its time is up is not sent.
 */
final class ConnectionScripts implements ScriptRunner {

    private final RedisConnectionFactory factory;
    private final StringRedisTemplate template;
    private final Executor io;
    private final Map<String, RedisScript<?>> scripts = new ConcurrentHashMap<>();
    private volatile Boolean cluster;

    ConnectionScripts(RedisConnectionFactory factory, Executor io) {
        this.factory = factory;
        this.template = new StringRedisTemplate(factory);
        this.io = io;
    }

    @Override
    public CompletableFuture<Object> run(String script, Reply reply, List<String> keys, List<String> args,
                                         long timeoutNanos) {
        RedisScript<?> redisScript = scripts.computeIfAbsent(script + (reply == Reply.LIST ? "\0L" : "\0N"),
                s -> reply == Reply.LIST ? new DefaultRedisScript<>(script, List.class)
                        : new DefaultRedisScript<>(script, Long.class));
        long deadline = System.nanoTime() + timeoutNanos;
        Object[] values = args.toArray();
        @SuppressWarnings("unchecked")
        RedisScript<Object> call = (RedisScript<Object>) redisScript;
        try {
            return CompletableFuture.<Object>supplyAsync(() -> {
                if (System.nanoTime() - deadline >= 0) {
                    throw new java.util.concurrent.CompletionException(
                            new TimeoutException("the call's time was up before a thread was free for it"));
                }
                return template.execute(call, keys, values);
            }, io).orTimeout(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (RuntimeException rejected) {  // closed
            return CompletableFuture.failedFuture(rejected);
        }
    }

    /** SCRIPT LOAD of each, pipelined on one connection of the factory, on a thread of the client. */
    @Override
    public CompletableFuture<?> load(List<String> scripts) {
        try {
            return CompletableFuture.runAsync(() -> {
                try (RedisConnection connection = factory.getConnection()) {
                    connection.openPipeline();
                    for (String script : scripts) {
                        connection.scriptingCommands().scriptLoad(script.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    }
                    connection.closePipeline();
                }
            }, io);
        } catch (RuntimeException rejected) {  // closed
            return CompletableFuture.failedFuture(rejected);
        }
    }

    @Override
    public String library() {
        return factory.getClass().getSimpleName().replace("ConnectionFactory", "");
    }

    /** Found out on the first question (renewals ask), from the kind of connection the factory gives. */
    @Override
    public boolean cluster() {
        Boolean known = cluster;
        if (known == null) {
            try (RedisConnection connection = factory.getConnection()) {
                known = connection instanceof RedisClusterConnection;
            }
            cluster = known;
        }
        return known;
    }

    @Override
    public int slot(String key) {
        return ClusterSlotHashUtil.calculateSlot(key);
    }

    @Override
    public boolean isRedisFailure(Throwable error) {
        return false;  // the factory's errors come as Spring's DataAccessException
    }

    @Override
    public boolean isTransient(Throwable error) {
        return false;
    }

    @Override
    public boolean isTimeout(Throwable error) {
        return false;
    }

    @Override
    public void close() {
        // the executor is the client's
    }
}
