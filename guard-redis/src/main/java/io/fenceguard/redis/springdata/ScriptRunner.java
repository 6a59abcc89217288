package io.fenceguard.redis.springdata;

import io.fenceguard.redis.RedisScriptClient.Reply;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * How {@link SpringDataRedisScriptClient} runs scripts on one kind of connection factory: Lettuce's asynchronous
 * API, or any factory's blocking {@code RedisConnection}. Kept apart so that the class naming Lettuce's types is
 * loaded only when the factory is Lettuce's.
 */
interface ScriptRunner extends AutoCloseable {

    /** Runs {@code script}; the answer is given up after {@code timeoutNanos}. */
    CompletableFuture<Object> run(String script, Reply reply, List<String> keys, List<String> args, long timeoutNanos);

    /**
     * Runs {@code script} for a caller that waits for the answer itself and gives it up at its own deadline: no timer
     * of this runner's per call. By default as {@link #run}.
     */
    default CompletableFuture<Object> runWaited(String script, Reply reply, List<String> keys, List<String> args,
                                                long timeoutNanos) {
        return run(script, reply, keys, args, timeoutNanos);
    }

    /** Whether {@link #run} holds no thread while Redis answers (Lettuce's asynchronous API); false by default. */
    default boolean answersWithoutBlocking() {
        return false;
    }

    /** Loads {@code scripts} into the server's script cache in one round trip; completes when the server confirmed. */
    CompletableFuture<?> load(List<String> scripts);

    /** The client library under Spring Data Redis, for descriptions. */
    String library();

    boolean cluster();

    int slot(String key);

    /** A failure of the client library's own types, beside Spring's {@code DataAccessException} family. */
    boolean isRedisFailure(Throwable error);

    boolean isTransient(Throwable error);

    boolean isTimeout(Throwable error);

    /**
     * Queues {@code WAIT replicas timeout} on {@code connection}, which is pipelined: by Spring's generic command by
     * default, with an integer reply where the client library needs to be told.
     */
    default void queueWait(org.springframework.data.redis.connection.RedisConnection connection, byte[] replicas,
                           byte[] timeout) {
        connection.execute("WAIT", replicas, timeout);
    }

    @Override
    void close();
}
