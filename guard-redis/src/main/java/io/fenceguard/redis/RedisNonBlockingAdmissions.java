package io.fenceguard.redis;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.IdempotencyStore;
import io.fenceguard.admission.IdempotentAdmissionStore.ClaimedAdmission;
import io.fenceguard.admission.NonBlockingAdmissionStore;
import io.fenceguard.admission.NonBlockingIdempotencyStore;
import io.fenceguard.admission.SignedAdmissionStore;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;

/**
 * {@link RedisHighWaterStore}'s admissions and idempotency keys without blocking: the same scripts
 * ({@link HighWaterScripts}, {@link RedisIdempotencyStore}'s) on the same keys, so that blocking and non-blocking
 * instances share marks, floor, nonces and idempotency records (recorded responses kept for the store's
 * {@link RedisHighWaterStore#idempotencyRetention()}), run through the client's asynchronous call (on Lettuce its
 * asynchronous API: no thread waits for Redis). Each answer is given up after {@link RedisHighWaterStore#CALL_TIMEOUT},
 * and the stage then fails with a {@link FenceguardException} naming the resource: fail closed, as the blocking calls.
 */
final class RedisNonBlockingAdmissions implements NonBlockingAdmissionStore, NonBlockingIdempotencyStore {

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

    @Override
    public Optional<NonBlockingIdempotencyStore> idempotentAdmissions() {
        return Optional.of(this);
    }

    /** {@link HighWaterScripts#ADMIT_CLAIMING}, with the same keys and arguments as the blocking store's call. */
    @Override
    public CompletionStage<ClaimedAdmission> admitClaiming(Fence presented, SignedAdmissionStore.Nonce nonce,
            String key, String fingerprint) {
        Objects.requireNonNull(presented, "presented");
        RedisHighWaterStore.ClaimingCall claiming = store.claimingCall(presented, nonce, key, fingerprint);
        return call(presented, HighWaterScripts.ADMIT_CLAIMING, RedisScriptClient.Reply.LIST, claiming.keys(),
                claiming.args()).thenApply(reply -> RedisHighWaterStore.claimedAdmission(presented, (List<?>) reply));
    }

    @Override
    public CompletionStage<Void> complete(ResourceName resource, String key, IdempotencyStore.RecordedResponse response) {
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(response, "response");
        return keyCall(resource, RedisIdempotencyStore.COMPLETE, List.of(records().recordKey(resource, key)),
                RedisIdempotencyStore.completeArgs(response, store.idempotencyRetention()));
    }

    @Override
    public CompletionStage<Void> abandon(ResourceName resource, String key) {
        Objects.requireNonNull(resource, "resource");
        return keyCall(resource, RedisIdempotencyStore.ABANDON, List.of(records().recordKey(resource, key)), List.of());
    }

    /** The idempotency records next to the store's marks: its client, prefix and retention. */
    private RedisIdempotencyStore records() {
        return store.records();
    }

    /** A script on one idempotency record; a failure as the idempotency store being unavailable for {@code resource}. */
    private CompletionStage<Void> keyCall(ResourceName resource, String script, List<String> keys, List<String> args) {
        return evalAsync(script, RedisScriptClient.Reply.LONG, keys, args)
                .exceptionallyCompose(e -> CompletableFuture.failedFuture(unavailable("idempotency store", resource,
                        null, e)))
                .thenApply(done -> null);
    }

    /** One script; any failure (a timeout, a refused connection, a call that threw) as the store being unavailable. */
    private CompletableFuture<Object> call(Fence presented, String script, RedisScriptClient.Reply reply,
            List<String> keys, List<String> args) {
        return evalAsync(script, reply, keys, args).exceptionallyCompose(e -> CompletableFuture.failedFuture(
                presented == null ? unavailable("nonce store", null, null, e)
                        : unavailable("high-water store", presented.resource(), presented.token(), e)));
    }

    private CompletableFuture<Object> evalAsync(String script, RedisScriptClient.Reply reply, List<String> keys,
            List<String> args) {
        try {
            return client.evalAsync(script, reply, keys, args, TIMEOUT_NANOS).toCompletableFuture();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** {@code what} (the high-water, nonce or idempotency store) unavailable for {@code resource} ({@code null}: none). */
    private static FenceguardException unavailable(String what, ResourceName resource, FencingToken token,
            Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
                : failure;
        String reason = cause instanceof TimeoutException
                ? "no answer from Redis within " + RedisHighWaterStore.CALL_TIMEOUT.toMillis() + " ms" : cause.getMessage();
        return new FenceguardException(what + " unavailable" + (resource == null ? "" : " for '" + resource + "'")
                + ": " + reason, resource, token, cause);
    }

    @Override
    public String toString() {
        return "non-blocking " + store;
    }
}
