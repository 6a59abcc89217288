package io.fenceguard.admission;

import io.fenceguard.core.Fence;
import io.fenceguard.core.ResourceName;
import java.util.concurrent.CompletionStage;

/**
 * The idempotency calls of a store whose backend answers without holding a thread while it waits (Lettuce's
 * asynchronous API): {@link IdempotentAdmissionStore#admitClaiming}, {@link IdempotencyStore#complete} and
 * {@link IdempotencyStore#abandon}, with the same semantics and on the same records as the blocking store that
 * offers it ({@link NonBlockingAdmissionStore#idempotentAdmissions()}), so that blocking and non-blocking instances
 * share their claims and recorded responses. A reactive server calls them on its event loop; the answer completes on
 * the client's I/O thread. Free of any reactive library, as {@link NonBlockingAdmissionStore}.
 *
 * <p>Implementations fail closed as the blocking stores do: when the store cannot answer within their timeout, the
 * stage fails with a {@code FenceguardException} naming the resource, and the request is refused.
 */
public interface NonBlockingIdempotencyStore {

    /**
     * As {@link IdempotentAdmissionStore#admitClaiming}: the nonce ({@code null}: not request-signed) recorded, the
     * fence admitted and, when admitted, {@code key} claimed for the request with {@code fingerprint}, in one call.
     */
    CompletionStage<IdempotentAdmissionStore.ClaimedAdmission> admitClaiming(Fence presented,
            SignedAdmissionStore.Nonce nonce, String key, String fingerprint);

    /** As {@link IdempotencyStore#complete}: records the first request's response. */
    CompletionStage<Void> complete(ResourceName resource, String key, IdempotencyStore.RecordedResponse response);

    /** As {@link IdempotencyStore#abandon}: forgets a claim whose request did not succeed. */
    CompletionStage<Void> abandon(ResourceName resource, String key);
}
