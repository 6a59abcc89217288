package io.fenceguard.redis.springdata;

import io.fenceguard.redis.RedisScriptClient.Reply;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Scripts through Lettuce's asynchronous API on the factory's native connection (its shared one, which is the
 * default; else one connection of the factory held for this client's life): EVALSHA, EVAL once Redis answers
 * NOSCRIPT, the answer a {@link CompletableFuture} bounded by {@code orTimeout}. No thread of this client waits for
 * Redis; Lettuce pipelines the calls of all threads on the one connection. The connection is taken on the client's
 * executor when the client is made (opening one may take the factory's connect timeout, which is no caller's), and
 * taken again by the next call after a failure to open it.
 */
final class LettuceScripts implements ScriptRunner {

    private final LettuceConnectionFactory factory;
    private final Executor opener;
    private final Map<String, String> digests = new ConcurrentHashMap<>();
    private volatile CompletableFuture<Held> held;
    private volatile boolean closed;

    private LettuceScripts(LettuceConnectionFactory factory, Executor opener) {
        this.factory = factory;
        this.opener = opener;
    }

    /** Whether {@code factory} is Lettuce's; asked only when Lettuce is on the class path. */
    static boolean accepts(Object factory) {
        return factory instanceof LettuceConnectionFactory;
    }

    /** Starts taking the connection at once, so that the first lease call does not wait for it. */
    static LettuceScripts of(Object factory, Executor opener) {
        LettuceScripts scripts = new LettuceScripts((LettuceConnectionFactory) factory, opener);
        scripts.connection();
        return scripts;
    }

    /**
     * The Spring connection whose native commands this client uses, closed with the client; {@code state} tells
     * whether Lettuce is connected (null when the commands do not say).
     */
    private record Held(RedisConnection connection, RedisClusterAsyncCommands<byte[], byte[]> commands,
                        StatefulConnection<?, ?> state) {
    }

    @Override
    public boolean answersWithoutBlocking() {
        return true;
    }

    @Override
    public CompletableFuture<Object> run(String script, Reply reply, List<String> keys, List<String> args,
                                         long timeoutNanos) {
        return runWaited(script, reply, keys, args, timeoutNanos).orTimeout(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Without {@code orTimeout}: its timer, queued first on the JDK's one delay thread by each call of one at a time,
     * wakes that thread once per call; the waiting caller gives the answer up at its deadline instead.
     */
    @Override
    public CompletableFuture<Object> runWaited(String script, Reply reply, List<String> keys, List<String> args,
                                               long timeoutNanos) {
        ScriptOutputType type = reply == Reply.LIST ? ScriptOutputType.MULTI : ScriptOutputType.INTEGER;
        byte[][] keyBytes = bytes(keys);
        byte[][] argBytes = bytes(args);
        CompletableFuture<Held> connection = connection();
        Held ready = connection.getNow(null);
        return ready != null ? send(ready, script, type, keyBytes, argBytes)
                : connection.thenCompose(h -> send(h, script, type, keyBytes, argBytes));
    }

    /**
     * Sent only while Lettuce is connected: while it reconnects it would hold the call and send it once Redis is back,
     * long after the caller gave up (an acquire granted then is one more lock to give back). A call refused here is a
     * transient failure that the caller tries again within its time, as with a refused connection.
     *
     * <p>One stage on Lettuce's command: its answer is converted, or on NOSCRIPT the script sent by EVAL, by the
     * thread that completes the command (Lettuce's, which every call of every thread shares), so each call adds one
     * completion there, not one per step.
     */
    private CompletableFuture<Object> send(Held held, String script, ScriptOutputType type, byte[][] keys,
                                           byte[][] args) {
        if (held.state() != null && !held.state().isOpen()) {
            return CompletableFuture.failedFuture(new RedisConnectionException(
                    "not connected to Redis: the connection factory's connection is reconnecting"));
        }
        RedisClusterAsyncCommands<byte[], byte[]> commands = held.commands();
        String digest = digests.computeIfAbsent(script, commands::digest);
        CompletableFuture<Object> answer = new CompletableFuture<>();
        commands.<Object>evalsha(digest, type, keys, args).whenComplete((reply, error) -> {
            if (error == null) {
                answer.complete(strings(reply));
            } else if (unwrap(error) instanceof RedisNoScriptException) {
                commands.<Object>eval(script, type, keys, args).whenComplete((evalReply, evalError) -> {
                    if (evalError == null) {
                        answer.complete(strings(evalReply));
                    } else {
                        fail(answer, evalError);
                    }
                });
            } else {
                fail(answer, error);
            }
        });
        return answer;
    }

    /** Failed as a dependent stage fails: Lettuce's exception in a {@link CompletionException}. */
    private static void fail(CompletableFuture<Object> answer, Throwable error) {
        answer.completeExceptionally(new CompletionException(unwrap(error)));
    }

    /** SCRIPT LOAD of each, pipelined on the connection (on a Cluster, Lettuce sends each to every master). */
    @Override
    public CompletableFuture<?> load(List<String> scripts) {
        return connection().thenCompose(h -> {
            CompletableFuture<?>[] loads = new CompletableFuture<?>[scripts.size()];
            for (int i = 0; i < loads.length; i++) {
                String script = scripts.get(i);
                loads[i] = h.commands().scriptLoad(script.getBytes(StandardCharsets.UTF_8)).toCompletableFuture()
                        .thenAccept(sha -> digests.put(script, sha));
            }
            return CompletableFuture.allOf(loads);
        });
    }

    /**
     * The native connection, opened once on the executor; opened again when the last try failed or it closed. Read
     * without the lock while it is open: every call of every thread asks, and threads waiting for the lock are
     * parked and woken each.
     */
    private CompletableFuture<Held> connection() {
        CompletableFuture<Held> current = held;
        if (current != null && !closed && current.isDone() && !current.isCompletedExceptionally()
                && !current.join().connection().isClosed()) {
            return current;
        }
        return connectionLocked();
    }

    private synchronized CompletableFuture<Held> connectionLocked() {
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("the Spring Data Redis lease client is closed"));
        }
        CompletableFuture<Held> current = held;
        if (current == null || current.isCompletedExceptionally()
                || (current.isDone() && current.join().connection().isClosed())) {
            try {
                current = CompletableFuture.supplyAsync(this::open, opener);
            } catch (RuntimeException rejected) {  // closed meanwhile
                return CompletableFuture.failedFuture(rejected);
            }
            held = current;
        }
        return current;
    }

    @SuppressWarnings("unchecked")
    private Held open() {
        RedisConnection connection = factory.getConnection();
        RedisClusterAsyncCommands<byte[], byte[]> commands =
                (RedisClusterAsyncCommands<byte[], byte[]>) connection.getNativeConnection();
        StatefulConnection<?, ?> state = commands instanceof RedisAsyncCommands<byte[], byte[]> single
                ? single.getStatefulConnection()
                : commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster
                ? cluster.getStatefulConnection() : null;
        return new Held(connection, commands, state);
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

    private static byte[][] bytes(List<String> values) {
        byte[][] out = new byte[values.size()][];
        for (int i = 0; i < out.length; i++) {
            out[i] = values.get(i).getBytes(StandardCharsets.UTF_8);
        }
        return out;
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    /** Lettuce reads a generic command's reply as bytes unless told: WAIT answers an integer. */
    @Override
    public void queueWait(RedisConnection connection, byte[] replicas, byte[] timeout) {
        ((LettuceConnection) connection).execute("WAIT", new IntegerOutput<>(ByteArrayCodec.INSTANCE), replicas, timeout);
    }

    @Override
    public String library() {
        return "Lettuce";
    }

    @Override
    public boolean cluster() {
        return factory.isClusterAware();
    }

    @Override
    public int slot(String key) {
        return SlotHash.getSlot(key);
    }

    @Override
    public boolean isRedisFailure(Throwable error) {
        return error instanceof RedisException;
    }

    @Override
    public boolean isTransient(Throwable error) {
        if (error instanceof RedisConnectionException || error instanceof RedisCommandTimeoutException) {
            return true;
        }
        String message = String.valueOf(error.getMessage());
        if (error instanceof RedisCommandExecutionException) {
            return SpringDataRedisScriptClient.transientReply(message);
        }
        // In flight when the connection dropped, or sent while it was down and refused: never run, or run once.
        return error.getClass() == RedisException.class && (message.startsWith("Connection closed")
                || message.startsWith("Connection is closed") || message.startsWith("Currently not connected"));
    }

    @Override
    public boolean isTimeout(Throwable error) {
        return error instanceof RedisCommandTimeoutException;
    }

    @Override
    public void close() {
        CompletableFuture<Held> current;
        synchronized (this) {
            closed = true;
            current = held;
            held = null;
        }
        if (current != null) {
            // Closing the Spring connection leaves a shared native connection open: it is the factory's.
            current.thenAccept(h -> h.connection().close());
        }
    }
}
