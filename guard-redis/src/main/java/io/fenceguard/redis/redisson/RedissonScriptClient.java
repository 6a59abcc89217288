package io.fenceguard.redis.redisson;

import io.fenceguard.redis.RedisScriptClient;
import io.fenceguard.redis.internal.ScriptCache;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RScriptAsync;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisConnectionException;
import org.redisson.client.RedisException;
import org.redisson.client.RedisNoScriptException;
import org.redisson.client.RedisNodeNotFoundException;
import org.redisson.client.RedisReadonlyException;
import org.redisson.client.RedisReconnectedException;
import org.redisson.client.RedisRetryException;
import org.redisson.client.RedisTimeoutException;
import org.redisson.client.codec.StringCodec;
import org.redisson.connection.CRC16;
import java.nio.charset.StandardCharsets;

/**
 * Scripts and release channels through the application's {@link RedissonClient}: asynchronous, on Redisson's I/O
 * threads; single, Sentinel, replicated and Cluster set-ups alike.
 *
 * <pre>{@code
 * LeaseManager guard = LeaseManager.of(RedisLeaseProvider.of(RedissonScriptClient.of(redisson)));
 * }</pre>
 */
public final class RedissonScriptClient implements RedisScriptClient {

    private final RedissonClient redisson;
    private final RScript script;
    private final boolean cluster;

    private RedissonScriptClient(RedissonClient redisson) {
        this.redisson = redisson;
        this.script = redisson.getScript(StringCodec.INSTANCE);
        this.cluster = redisson.getConfig().isClusterConfig();
    }

    /** On {@code redisson}, which stays the application's: {@link #close()} leaves it open. */
    public static RedissonScriptClient of(RedissonClient redisson) {
        return new RedissonScriptClient(java.util.Objects.requireNonNull(redisson, "redisson"));
    }

    @Override
    public CompletionStage<Object> eval(String text, Reply reply, List<String> keys, List<String> args, long deadlineNanos) {
        return evalSha(text, reply, keys, args);
    }

    /** Redisson's asynchronous calls: its Netty I/O. */
    @Override
    public boolean answersWithoutBlocking() {
        return true;
    }

    @Override
    public CompletionStage<Object> evalAsync(String text, Reply reply, List<String> keys, List<String> args, long timeoutNanos) {
        return evalSha(text, reply, keys, args).orTimeout(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * EVALSHA of the script's digest, and the script itself once Redis answers NOSCRIPT. Not Redisson's script
     * cache behind {@code evalAsync(text)}: per call it copies the keys and the encoded arguments (for its own
     * NOSCRIPT retry), shortens the script's text for the command's name and adds a stage of its own.
     */
    private CompletableFuture<Object> evalSha(String text, Reply reply, List<String> keys, List<String> args) {
        RScript.ReturnType type = reply == Reply.LIST ? RScript.ReturnType.LIST : RScript.ReturnType.LONG;
        return script.<Object>evalShaAsync(keys.get(0), RScript.Mode.READ_WRITE, ScriptCache.sha1(text), type, new ArrayList<>(keys),
                        args.toArray()).toCompletableFuture()
                .exceptionallyCompose(e -> unwrap(e) instanceof RedisNoScriptException
                        ? run(script, text, reply, keys, args).toCompletableFuture()
                        : CompletableFuture.failedFuture(unwrap(e)));
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    @Override
    public List<CompletionStage<Object>> evalAllAsync(String text, List<List<String>> keys, List<List<String>> args,
                                                      long timeoutNanos) {
        List<CompletionStage<Object>> replies = new ArrayList<>(keys.size());
        if (!cluster || keys.size() == 1) {
            for (int i = 0; i < keys.size(); i++) {
                replies.add(evalAsync(text, Reply.LIST, keys.get(i), args.get(i), timeoutNanos));
            }
            return replies;
        }
        // One pipeline per node: a script touches one slot only, so each goes to the owner of its keys.
        RBatch batch = redisson.createBatch();
        RScriptAsync batched = batch.getScript(StringCodec.INSTANCE);
        List<CompletionStage<Object>> each = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            each.add(run(batched, text, Reply.LIST, keys.get(i), args.get(i)));
        }
        CompletableFuture<?> executed = batch.executeAsync().toCompletableFuture();
        for (CompletionStage<Object> reply : each) {
            // A batch that fails as a whole fails every call in it, also one whose own reply never completes.
            replies.add(executed.thenCompose(done -> reply).orTimeout(timeoutNanos, TimeUnit.NANOSECONDS));
        }
        return replies;
    }

    /** The script in a batch that Redisson follows with {@code WAIT} on the same connection ({@code BatchOptions.sync}). */
    @Override
    public CompletionStage<Replicated> evalReplicated(String text, Reply reply, List<String> keys, List<String> args,
                                                      int replicas, java.time.Duration timeout, long deadlineNanos) {
        RBatch batch = redisson.createBatch(BatchOptions.defaults().sync(replicas, timeout));
        CompletableFuture<Object> answer = run(batch.getScript(StringCodec.INSTANCE), text, reply, keys, args)
                .toCompletableFuture();
        return batch.executeAsync().toCompletableFuture()
                .thenCompose(result -> answer.thenApply(value -> new Replicated(value, result.getSyncedSlaves())));
    }

    @Override
    public boolean waitsForReplicas() {
        return true;
    }

    private static CompletionStage<Object> run(RScriptAsync on, String text, Reply reply, List<String> keys,
                                               List<String> args) {
        RScript.ReturnType type = reply == Reply.LIST ? RScript.ReturnType.LIST : RScript.ReturnType.LONG;
        return on.evalAsync(keys.get(0), RScript.Mode.READ_WRITE, text, type, new ArrayList<>(keys), args.toArray());
    }

    /** {@code SCRIPT LOAD} of each script on every master, through Redisson's own script cache. */
    @Override
    public CompletionStage<?> load(List<String> scripts) {
        CompletableFuture<?>[] loads = scripts.stream()
                .map(text -> script.scriptLoadAsync(text).toCompletableFuture())
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(loads);
    }

    @Override
    public String name() {
        return "Redisson";
    }

    @Override
    public boolean cluster() {
        return cluster;
    }

    @Override
    public int slot(String key) {
        int open = key.indexOf('{');
        if (open >= 0) {
            int close = key.indexOf('}', open + 1);
            if (close > open + 1) {
                key = key.substring(open + 1, close);
            }
        }
        return CRC16.crc16(key.getBytes(StandardCharsets.UTF_8)) % 16384;
    }

    @Override
    public Subscription subscribe(String channel, Runnable onMessage) {
        RTopic topic = redisson.getTopic(channel, StringCodec.INSTANCE);
        CompletableFuture<Integer> listener = topic.addListenerAsync(String.class, (name, message) -> onMessage.run())
                .toCompletableFuture();
        return new Subscription() {
            @Override
            public CompletionStage<?> confirmed() {
                return listener;
            }

            @Override
            public void cancel() {
                listener.thenAccept(topic::removeListenerAsync);
            }
        };
    }

    @Override
    public boolean isRedisFailure(Throwable error) {
        return error instanceof RedisException;
    }

    @Override
    public boolean isTransient(Throwable e) {
        return e instanceof RedisConnectionException || e instanceof RedisTimeoutException
                || e instanceof RedisRetryException || e instanceof RedisReadonlyException
                || e instanceof RedisNodeNotFoundException || e instanceof RedisReconnectedException;
    }

    @Override
    public boolean isTimeout(Throwable error) {
        return error instanceof RedisTimeoutException || error instanceof TimeoutException;
    }

    @Override
    public void close() {
        // the client is the application's
    }
}
