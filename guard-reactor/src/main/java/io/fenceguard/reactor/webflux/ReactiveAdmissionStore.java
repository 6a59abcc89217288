package io.fenceguard.reactor.webflux;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.NonceStore;
import io.fenceguard.admission.SignedAdmissionStore;
import io.fenceguard.core.Fence;
import java.time.Instant;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * The admission calls of a store whose backend answers without blocking a thread (R2DBC, a reactive Redis
 * client): the reactive counterpart of {@link HighWaterStore#admit}, {@link SignedAdmissionStore#admit(Fence,
 * SignedAdmissionStore.Nonce)} and {@link NonceStore#firstUse}, with the same semantics, so that they may be
 * subscribed to on an event loop. On R2DBC: {@code R2dbcHighWaterStore.nonBlocking()}.
 *
 * <p>Implementations fail closed as the blocking stores do: when the store cannot answer within their timeout, the
 * {@code Mono} fails with a {@code FenceguardException} naming the resource, and the request is refused.
 */
public interface ReactiveAdmissionStore {

    /** As {@link HighWaterStore#admit}: a newer token claims the resource, the same continues, an older one is stale. */
    Mono<Admission> admit(Fence presented);

    /**
     * As {@link SignedAdmissionStore#admit(Fence, SignedAdmissionStore.Nonce)}: the nonce recorded and the fence
     * admitted together; empty {@code Optional} when the nonce was used before (the mark unchanged).
     */
    Mono<Optional<Admission>> admit(Fence presented, SignedAdmissionStore.Nonce nonce);

    /** As {@link NonceStore#firstUse}: whether {@code nonce} was not seen before (now recorded until {@code expires}). */
    Mono<Boolean> firstUse(String nonce, Instant expires);
}
