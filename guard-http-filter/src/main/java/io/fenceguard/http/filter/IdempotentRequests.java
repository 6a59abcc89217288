package io.fenceguard.http.filter;

import io.fenceguard.admission.IdempotencyKeys;
import io.fenceguard.admission.IdempotencyStore;
import io.fenceguard.admission.Problem;
import io.fenceguard.core.Fence;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The idempotency step of {@link FencingFilter#withIdempotency}: an admitted request's {@value FencingFilter#IDEMPOTENCY_KEY}
 * claimed, answered from its first response or refused, the first response recorded when the handler succeeded,
 * the claim forgotten when it did not.
 */
final class IdempotentRequests {

    private static final Logger log = LoggerFactory.getLogger(FencingFilter.class); // the filter's log, as before

    private final IdempotencyStore store;
    private final Refusals refusals;

    IdempotentRequests(IdempotencyStore store, Refusals refusals) {
        this.store = store;
        this.refusals = refusals;
    }

    /**
     * Claims the request's key, when it has one (unless the store claimed it with the admission: {@code claimed},
     * else {@code null}). Answers the request itself when the key is malformed, the store unavailable, or the key
     * already taken: with the first response, or with a refusal.
     */
    KeyClaim claim(Fence presented, HttpServletRequest http, String fingerprint, IdempotencyStore.Claim claimed,
            HttpServletResponse out, String path) throws IOException {
        String key = http.getHeader(FencingFilter.IDEMPOTENCY_KEY);
        if (key == null) {
            return new KeyClaim(null, null);
        }
        if (!IdempotencyKeys.wellFormed(key)) {
            refusals.refuse(http, out, path, Problem.badIdempotencyKey(presented, IdempotencyKeys.FORM));
            return new KeyClaim(key, RequestOutcome.of(false, presented));
        }
        // A well-formed key on a fenced route: the filter read the body and took the fingerprint before the admission.
        IdempotencyStore.Claim claim = claimed;
        try {
            if (claim == null) {
                claim = store.claim(presented, key, fingerprint);
            }
        } catch (RuntimeException e) {
            log.warn("idempotency check for '{}' failed; refusing the request", presented.resource(), e);
            refusals.refuse(http, out, path, Problem.unavailable(presented));
            return new KeyClaim(key, RequestOutcome.of(false, presented));
        }
        return switch (claim.kind()) {
            case FIRST -> new KeyClaim(key, null);
            case COMPLETED -> {
                replay(claim.response(), out);
                yield new KeyClaim(key, RequestOutcome.of(true, presented));
            }
            case IN_PROGRESS -> {
                refusals.refuse(http, out, path, Problem.idempotencyInProgress(presented, key));
                yield new KeyClaim(key, RequestOutcome.of(false, presented));
            }
            case OTHER_REQUEST -> {
                refusals.refuse(http, out, path, Problem.idempotencyKeyReused(presented, key));
                yield new KeyClaim(key, RequestOutcome.of(false, presented));
            }
        };
    }

    /** Records the response the handler sent as the first response to {@code key}. */
    void complete(Fence presented, String key, byte[] body, HttpServletResponse out) {
        store.complete(presented.resource(), key,
                new IdempotencyStore.RecordedResponse(out.getStatus(), out.getContentType(), body));
    }

    /** Forgets the claim of {@code key} ({@code null}: none), so that a retry runs again. */
    void abandon(Fence presented, String key) {
        if (key == null) {
            return;
        }
        try {
            store.abandon(presented.resource(), key);
        } catch (RuntimeException e) {
            log.warn("could not forget the claim of idempotency key '{}' for '{}'", key, presented.resource(), e);
        }
    }

    /** Answers with the first response to the request's idempotency key. */
    private static void replay(IdempotencyStore.RecordedResponse first, HttpServletResponse out) throws IOException {
        out.setStatus(first.status());
        if (first.contentType() != null) {
            out.setContentType(first.contentType());
        }
        out.setHeader(FencingFilter.IDEMPOTENT_REPLAYED, "true");
        out.getOutputStream().write(first.body());
    }

    /**
     * A request's idempotency key ({@code null}: none), and the outcome when the claim answered the request itself
     * ({@code null}: the handler is to run).
     */
    record KeyClaim(String key, RequestOutcome answer) {
    }
}
