package io.fenceguard.redis;

import io.fenceguard.redis.internal.RedisLeaseScripts;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * What a lease needs from a Redis client: run a Lua script, hear of releases on a channel, and tell a Redis
 * failure (and a transient one) from any other error. One implementation per client library, each in a package of
 * its own ({@code redisson}, {@code jedis}, {@code springdata}) so that no class loaded for one client names
 * another client's types; the lease logic above it is written once.
 */
public interface RedisScriptClient extends AutoCloseable {

    /** How a script's answer is read. */
    enum Reply { LIST, LONG }

    /**
     * Runs {@code script} for the caller, which waits for the answer until {@code deadlineNanos}
     * ({@link System#nanoTime()}); a client that does its I/O on the caller's thread stops there itself.
     */
    CompletionStage<Object> eval(String script, Reply reply, List<String> keys, List<String> args, long deadlineNanos);

    /** Runs {@code script} without blocking the caller; the answer is given up after {@code timeoutNanos}. */
    CompletionStage<Object> evalAsync(String script, Reply reply, List<String> keys, List<String> args, long timeoutNanos);

    /**
     * Whether {@link #evalAsync} holds no thread while Redis answers (the client's I/O is non-blocking: Lettuce,
     * Redisson), so that a reactive server may call it on its event loop; a client that runs each call on a thread of
     * its own (Jedis, a blocking connection) answers false, the default.
     */
    default boolean answersWithoutBlocking() {
        return false;
    }

    /**
     * Runs several scripts of list answers without blocking the caller, each on the node of its first key, in
     * as few round trips as the client allows; one answer per call, in order.
     */
    List<CompletionStage<Object>> evalAllAsync(String script, List<List<String>> keys, List<List<String>> args,
                                               long timeoutNanos);

    /**
     * Loads {@code scripts} into the script cache of every master ahead of their first use, so that the first call
     * of each (a renewal, a give-up mark sent after a timeout) is one round trip instead of a refused EVALSHA, a
     * load and a retry. A server that lost its cache later (a restart, a failover) costs that again once per script.
     * Completes when the server confirmed; by default does nothing.
     */
    default CompletionStage<?> load(List<String> scripts) {
        return java.util.concurrent.CompletableFuture.completedFuture(null);
    }

    /** A script's answer and how many replicas acknowledged the writes before it ({@link #evalReplicated}). */
    record Replicated(Object answer, int replicas) {
    }

    /**
     * Runs {@code script}, then {@code WAIT replicas timeout} on the same connection (a script cannot call WAIT): the
     * answer comes with the number of replicas that acknowledged every write of that connection up to the script's,
     * fewer than {@code replicas} when the timeout passed first. The caller waits until {@code deadlineNanos}.
     * Fails (in the stage) with {@link UnsupportedOperationException} by default: see {@link #waitsForReplicas()}.
     */
    default CompletionStage<Replicated> evalReplicated(String script, Reply reply, List<String> keys, List<String> args,
                                                       int replicas, java.time.Duration timeout, long deadlineNanos) {
        return java.util.concurrent.CompletableFuture.failedFuture(
                new UnsupportedOperationException(name() + " cannot wait for replicas"));
    }

    /** Whether {@link #evalReplicated} is supported. */
    default boolean waitsForReplicas() {
        return false;
    }

    /**
     * How many replicas the master holding {@code key} has connected now ({@code INFO replication},
     * {@code connected_slaves}).
     */
    default CompletionStage<Integer> connectedReplicas(String key, long deadlineNanos) {
        return eval(RedisLeaseScripts.CONNECTED_REPLICAS, Reply.LONG, List.of(key), List.of(), deadlineNanos)
                .thenApply(count -> ((Number) count).intValue());
    }

    /** The client library, for descriptions: {@code Redisson}, {@code Jedis}. */
    String name();

    /** Whether keys of different hash slots may live on different nodes (Redis Cluster). */
    boolean cluster();

    /** The Cluster hash slot of {@code key} (hash tags honoured); asked only when {@link #cluster()} is true. */
    int slot(String key);

    /** Calls {@code onMessage} on every message to {@code channel}; the stage completes once Redis confirmed. */
    Subscription subscribe(String channel, Runnable onMessage);

    /** A Redis error (server, connection, timeout), as opposed to a bug or an interrupt. */
    boolean isRedisFailure(Throwable error);

    /** A Redis error that a retry within the time left may get past (connection, timeout, failover). */
    boolean isTransient(Throwable error);

    /** No answer within the time: the command may still have run. */
    boolean isTimeout(Throwable error);

    /** Ends what the client started for leases (threads, subscriptions); the application's client stays open. */
    @Override
    void close();

    /** One listener on one channel. */
    interface Subscription {
        /** Completes when Redis confirmed the subscription. */
        CompletionStage<?> confirmed();

        /** Stops listening. */
        void cancel();
    }
}
