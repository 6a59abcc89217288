package io.fenceguard.redis.springdata;

import io.fenceguard.redis.RedisScriptClient;
import io.fenceguard.redis.internal.Timeouts;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.ConnectionUtils;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * Scripts and release channels through the application's Spring Data Redis {@link RedisConnectionFactory}, which
 * stays the application's: fenceguard never creates, configures or closes one.
 * <ul>
 *   <li>On a {@code LettuceConnectionFactory} (Spring Boot's default), scripts go through Lettuce's asynchronous API
 *   on the factory's shared native connection: no thread waits for Redis, the calls of all threads are pipelined on
 *   the one connection, Cluster calls go to the owner of their keys.</li>
 *   <li>On any other factory ({@code JedisConnectionFactory}), through its {@code RedisConnection} on two threads of
 *   this client, while each caller waits at most its time.</li>
 * </ul>
 * Release channels share one subscribed connection of the factory. Failures are told apart by Spring's
 * {@link DataAccessException} family and, with Lettuce, Lettuce's own {@code RedisException}s.
 *
 * <pre>{@code
 * LeaseManager guard = LeaseManager.of(RedisLeaseProvider.of(SpringDataRedisScriptClient.of(connectionFactory)));
 * }</pre>
 */
public final class SpringDataRedisScriptClient implements RedisScriptClient {

    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final boolean LETTUCE = ClassUtils.isPresent("io.lettuce.core.RedisClient",
            SpringDataRedisScriptClient.class.getClassLoader());

    private final ExecutorService io;
    private final ScriptRunner scripts;
    private final ReleaseChannels channels;
    private final ReplicatedScripts replicated;

    private SpringDataRedisScriptClient(RedisConnectionFactory factory) {
        int n = THREADS.incrementAndGet();
        ThreadPoolExecutor executor = new ThreadPoolExecutor(2, 2, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                r -> daemon(r, "fenceguard-springdata-io-" + n));
        executor.allowCoreThreadTimeOut(true);
        this.io = executor;
        this.scripts = LETTUCE && ConnectionUtils.isLettuce(factory) && LettuceScripts.accepts(factory)
                ? LettuceScripts.of(factory, io) : new ConnectionScripts(factory, io);
        this.channels = new ReleaseChannels(factory, "fenceguard-springdata-" + n);
        this.replicated = new ReplicatedScripts(factory, scripts, "fenceguard-springdata-wait-" + n);
    }

    /**
     * On {@code factory}, which stays the application's: {@link #close()} stops this client's threads and gives back
     * its subscribed connection, and leaves the factory and its shared connection open.
     */
    public static SpringDataRedisScriptClient of(RedisConnectionFactory factory) {
        return new SpringDataRedisScriptClient(Objects.requireNonNull(factory, "factory"));
    }

    @Override
    public CompletionStage<Object> eval(String script, Reply reply, List<String> keys, List<String> args,
                                        long deadlineNanos) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
            return CompletableFuture.failedFuture(new TimeoutException("no time left for the call"));
        }
        return scripts.runWaited(script, reply, keys, args, left);
    }

    @Override
    public CompletionStage<Object> evalAsync(String script, Reply reply, List<String> keys, List<String> args,
                                             long timeoutNanos) {
        return scripts.run(script, reply, keys, args, timeoutNanos);
    }

    /** On Lettuce: its asynchronous API. */
    @Override
    public boolean answersWithoutBlocking() {
        return scripts.answersWithoutBlocking();
    }

    /** The scripts in the server's cache ahead of their first use, in one round trip. */
    @Override
    public CompletionStage<?> load(List<String> scripts) {
        return this.scripts.load(scripts);
    }

    /** One call each: Lettuce pipelines them on its connection by itself, each to the node of its keys. */
    @Override
    public List<CompletionStage<Object>> evalAllAsync(String script, List<List<String>> keys, List<List<String>> args,
                                                      long timeoutNanos) {
        List<CompletionStage<Object>> replies = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            replies.add(scripts.run(script, Reply.LIST, keys.get(i), args.get(i), timeoutNanos));
        }
        return replies;
    }

    /**
     * The script and its {@code WAIT} pipelined on a connection of the factory that no other call shares (WAIT blocks
     * its connection until the replicas answered).
     */
    @Override
    public CompletionStage<Replicated> evalReplicated(String script, Reply reply, List<String> keys, List<String> args,
                                                      int replicas, java.time.Duration timeout, long deadlineNanos) {
        if (cluster()) {
            return CompletableFuture.failedFuture(new UnsupportedOperationException(
                    name() + " cannot wait for replicas on a Redis Cluster"));
        }
        return replicated.run(script, reply, keys, args, replicas, timeout, deadlineNanos);
    }

    /** On one master with its replicas (Sentinel or not); not on a Redis Cluster, where pipelines are not supported. */
    @Override
    public boolean waitsForReplicas() {
        try {
            return !cluster();
        } catch (RuntimeException unreachable) {
            return true;  // asked again, and refused on a Cluster, at the first grant
        }
    }

    /** {@code Spring Data Redis (Lettuce)} or, on another factory, its name. */
    @Override
    public String name() {
        return "Spring Data Redis (" + scripts.library() + ")";
    }

    @Override
    public boolean cluster() {
        return scripts.cluster();
    }

    @Override
    public int slot(String key) {
        return scripts.slot(key);
    }

    @Override
    public Subscription subscribe(String channel, Runnable onMessage) {
        return channels.add(channel, onMessage);
    }

    @Override
    public boolean isRedisFailure(Throwable error) {
        return error instanceof DataAccessException || error instanceof TimeoutException || scripts.isRedisFailure(error);
    }

    @Override
    public boolean isTransient(Throwable error) {
        if (error instanceof TimeoutException || error instanceof RedisConnectionFailureException
                || error instanceof TransientDataAccessException || scripts.isTransient(error)) {
            return true;
        }
        if (error instanceof DataAccessException) {
            for (Throwable e = error; e != null; e = e.getCause()) {
                if (transientReply(String.valueOf(e.getMessage()))) {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    public boolean isTimeout(Throwable error) {
        return error instanceof QueryTimeoutException || scripts.isTimeout(error)
                || Timeouts.timedOut(error);
    }

    @Override
    public void close() {
        channels.close();
        replicated.close();
        scripts.close();
        io.shutdownNow();
    }

    /** A reply of a server that is failing over or starting: a retry within the time left may get past it. */
    static boolean transientReply(String message) {
        return message.startsWith("READONLY") || message.startsWith("LOADING") || message.startsWith("MASTERDOWN")
                || message.startsWith("TRYAGAIN");
    }

    static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }
}
