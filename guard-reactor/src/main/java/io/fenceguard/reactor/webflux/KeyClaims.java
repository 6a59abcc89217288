package io.fenceguard.reactor.webflux;

import io.fenceguard.admission.IdempotencyStore;
import io.fenceguard.admission.NonBlockingIdempotencyStore;
import io.fenceguard.admission.Verdict;
import io.fenceguard.core.Fence;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The {@link FencingWebFilter}'s calls to its {@link IdempotencyStore}: the store's non-blocking calls where it offers
 * them ({@link NonBlockingIdempotencyStore}), made in place; otherwise blocking, so made on its scheduler.
 */
final class KeyClaims {

    private static final Logger log = LoggerFactory.getLogger(FencingWebFilter.class);

    private final IdempotencyStore store;
    /** The same store's non-blocking calls, {@code null} when it offers none. */
    private final NonBlockingIdempotencyStore calls;
    private final Scheduler scheduler;

    KeyClaims(IdempotencyStore store, NonBlockingIdempotencyStore calls, Scheduler scheduler) {
        this.store = store;
        this.calls = calls;
        this.scheduler = scheduler;
    }

    /**
     * The claim of {@code key} by the request admitted with {@code presented}: the one its verdict carries when the
     * store decided it with the admission, else claimed now; empty when the store could not answer (fail closed).
     */
    Mono<Optional<IdempotencyStore.Claim>> claim(Verdict verdict, Fence presented, String key, String fingerprint) {
        return verdict.claim().map(Mono::just)
                .orElseGet(() -> Mono.fromCallable(() -> store.claim(presented, key, fingerprint)).subscribeOn(scheduler))
                .map(Optional::of)
                .onErrorResume(RuntimeException.class, e -> {
                    log.warn("idempotency check for '{}' failed; refusing the request", presented.resource(), e);
                    return Mono.just(Optional.empty());
                });
    }

    /** Records the first response to {@code key}. */
    Mono<Void> complete(Fence presented, String key, IdempotencyStore.RecordedResponse first) {
        if (calls != null) {
            return Mono.fromCompletionStage(() -> calls.complete(presented.resource(), key, first));
        }
        return Mono.<Void>fromRunnable(() -> store.complete(presented.resource(), key, first)).subscribeOn(scheduler);
    }

    /** Forgets the claim of {@code key} ({@code null}: none) of a request that did not succeed: a retry runs again. */
    Mono<Void> abandon(Fence presented, String key) {
        if (key == null) {
            return Mono.empty();
        }
        Mono<Void> abandoned = calls != null ? Mono.fromCompletionStage(() -> calls.abandon(presented.resource(), key))
                : Mono.<Void>fromRunnable(() -> store.abandon(presented.resource(), key)).subscribeOn(scheduler);
        return abandoned.onErrorResume(RuntimeException.class, e -> {
            log.warn("could not forget the claim of idempotency key '{}' for '{}'", key, presented.resource(), e);
            return Mono.empty();
        });
    }
}
