package io.fenceguard.admission;

import io.fenceguard.core.Fence;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * The admission calls of a store whose backend answers without holding a thread while it waits (R2DBC, Lettuce's
 * asynchronous API): {@link HighWaterStore#admit}, {@link SignedAdmissionStore#admit(Fence, SignedAdmissionStore.Nonce)}
 * and {@link NonceStore#firstUse}, with the same semantics and on the same keys or rows as the blocking store that
 * offers it ({@link HighWaterStore#nonBlocking()}), so that blocking and non-blocking instances share their marks.
 * A reactive server calls them on its event loop; the answer completes on the client's I/O thread. Free of any
 * reactive library: a {@code Mono} adapts a stage with {@code Mono.fromCompletionStage}.
 *
 * <p>Implementations fail closed as the blocking stores do: when the store cannot answer within their timeout, the
 * stage fails with a {@code FenceguardException} naming the resource, and the request is refused.
 */
public interface NonBlockingAdmissionStore {

    /** As {@link HighWaterStore#admit}: a newer token claims the resource, the same continues, an older one is stale. */
    CompletionStage<Admission> admit(Fence presented);

    /**
     * As {@link SignedAdmissionStore#admit(Fence, SignedAdmissionStore.Nonce)}: the nonce recorded and the fence
     * admitted together; empty when the nonce was used before (the mark unchanged).
     */
    CompletionStage<Optional<Admission>> admit(Fence presented, SignedAdmissionStore.Nonce nonce);

    /** As {@link NonceStore#firstUse}: whether {@code nonce} was not seen before (now recorded until {@code expires}). */
    CompletionStage<Boolean> firstUse(String nonce, Instant expires);

    /**
     * The same store's idempotency calls without blocking ({@link NonBlockingIdempotencyStore}), when it keeps
     * idempotency keys and decides their claims with the admission ({@link HighWaterStore#idempotentAdmissions()}).
     * Empty by default, and then the caller makes the blocking calls off its I/O threads. A decorator offers its
     * backend's calls only if it decorates them too.
     */
    default Optional<NonBlockingIdempotencyStore> idempotentAdmissions() {
        return Optional.empty();
    }
}
