package io.fenceguard.redis;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.NonBlockingAdmissionStore;
import io.fenceguard.admission.SignedAdmissionStore;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FenceguardException;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;

/**
 * {@link RedisHighWaterStore}'s admissions without blocking: the same scripts ({@link HighWaterScripts}) on the same
 * keys, so that blocking and non-blocking instances share marks, floor and nonces, run through the client's
 * asynchronous call (on Lettuce its asynchronous API: no thread waits for Redis). Each answer is given up after
 * {@link RedisHighWaterStore#CALL_TIMEOUT}, and the stage then fails with a {@link FenceguardException} naming the
 * resource: fail closed, as the blocking calls.
 */
final class RedisNonBlockingAdmissions implements NonBlockingAdmissionStore {

    private static final long TIMEOUT_NANOS = RedisHighWaterStore.CALL_TIMEOUT.toNanos();

    private final RedisHighWaterStore store;
    private final RedisScriptClient client;

    RedisNonBlockingAdmissions(RedisHighWaterStore store, RedisScriptClient client) {
        this.store = store;
        this.client = client;
    }

    @Override
    public CompletionStage<Admission> admit(Fence presented) {
        Objects.requireNonNull(presented, "presented");
        return call(presented, HighWaterScripts.ADMIT, RedisScriptClient.Reply.LIST, store.admitKeys(presented),
                store.admitArgs(presented))
                .thenApply(reply -> RedisHighWaterStore.admission(presented, (List<?>) reply));
    }

    @Override
    public CompletionStage<Optional<Admission>> admit(Fence presented, SignedAdmissionStore.Nonce nonce) {
        Objects.requireNonNull(presented, "presented");
        Objects.requireNonNull(nonce, "nonce");
        return call(presented, HighWaterScripts.ADMIT_SIGNED, RedisScriptClient.Reply.LIST,
                store.signedKeys(presented, nonce.value()), store.signedArgs(presented, nonce.expires()))
                .thenApply(reply -> ((Number) ((List<?>) reply).get(0)).longValue() == -2 ? Optional.empty()
                        : Optional.of(RedisHighWaterStore.admission(presented, (List<?>) reply)));
    }

    @Override
    public CompletionStage<Boolean> firstUse(String nonce, Instant expires) {
        Objects.requireNonNull(nonce, "nonce");
        Objects.requireNonNull(expires, "expires");
        return call(null, HighWaterScripts.FIRST_USE, RedisScriptClient.Reply.LONG, List.of(store.nonceKey(nonce)),
                List.of(Long.toString(RedisHighWaterStore.ttlMillis(expires))))
                .thenApply(RedisHighWaterStore::isOne);
    }

    /** One script; any failure (a timeout, a refused connection, a call that threw) as the store being unavailable. */
    private CompletableFuture<Object> call(Fence presented, String script, RedisScriptClient.Reply reply,
            List<String> keys, List<String> args) {
        CompletableFuture<Object> answer;
        try {
            answer = client.evalAsync(script, reply, keys, args, TIMEOUT_NANOS).toCompletableFuture();
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        return answer.exceptionallyCompose(e -> CompletableFuture.failedFuture(unavailable(presented, e)));
    }

    private static FenceguardException unavailable(Fence presented, Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
                : failure;
        String reason = cause instanceof TimeoutException
                ? "no answer from Redis within " + RedisHighWaterStore.CALL_TIMEOUT.toMillis() + " ms" : cause.getMessage();
        return presented == null ? new FenceguardException("nonce store unavailable: " + reason, null, null, cause)
                : new FenceguardException("high-water store unavailable for '" + presented.resource() + "': " + reason,
                        presented.resource(), presented.token(), cause);
    }

    @Override
    public String toString() {
        return "non-blocking " + store;
    }
}
