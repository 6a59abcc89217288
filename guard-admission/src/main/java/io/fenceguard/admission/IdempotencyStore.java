package io.fenceguard.admission;

import io.fenceguard.core.Fence;
import io.fenceguard.core.ResourceName;

/**
 * The first response to each {@code Idempotency-Key} of a resource, so that a retried or replayed
 * request is answered from its first result instead of being applied twice. A key belongs to its
 * resource and to the request it first came with (its fingerprint: method, path, body digest); the
 * token of that first request is recorded with it. Kept in the high-water store's backend:
 * {@link InMemoryHighWaterStore}, {@code JdbcHighWaterStore}, {@code R2dbcHighWaterStore} and {@code RedisHighWaterStore}
 * implement it (the last three deciding a claim with its admission, {@link IdempotentAdmissionStore}). Fails closed: when the store cannot
 * answer it throws, and the request is refused.
 *
 * <p>Exactly once needs the record to commit with the handler's effects: {@code JdbcHighWaterStore}
 * does so when it joins the handler's transaction (the servlet {@code FencingFilter.inTransaction}); otherwise a
 * crash between the handler's commit and {@link #complete} leaves the key claimed and unanswered, and
 * a retry is told to retry later until {@code claim} gives up on the claim.
 *
 * <p>How long claims and recorded responses are kept is one rule for every store: {@link IdempotencyRetention}.
 */
public interface IdempotencyStore {

    /**
     * Claims {@code key} for the request with {@code fingerprint} admitted with {@code presented}: answers
     * {@link Claim#first()} when this request is the first with the key (it then runs, and is completed or
     * abandoned), or what became of the first one.
     */
    Claim claim(Fence presented, String key, String fingerprint);

    /** Records the first request's response. */
    void complete(ResourceName resource, String key, RecordedResponse response);

    /** Forgets a claim whose request did not succeed, so that a retry runs again. */
    void abandon(ResourceName resource, String key);

    /** A response as first sent: status, content type (may be {@code null}) and body. */
    record RecordedResponse(int status, String contentType, byte[] body) {
    }

    /** The answer to a claim. */
    record Claim(Kind kind, RecordedResponse response) {

        public enum Kind {
            /** This request is the first with its key. */
            FIRST,
            /** The first request completed; answer with its response. */
            COMPLETED,
            /** The first request has not completed yet. */
            IN_PROGRESS,
            /** The key came first with another request. */
            OTHER_REQUEST
        }

        public static Claim first() {
            return new Claim(Kind.FIRST, null);
        }

        public static Claim completed(RecordedResponse first) {
            return new Claim(Kind.COMPLETED, java.util.Objects.requireNonNull(first, "first"));
        }

        public static Claim inProgress() {
            return new Claim(Kind.IN_PROGRESS, null);
        }

        public static Claim otherRequest() {
            return new Claim(Kind.OTHER_REQUEST, null);
        }
    }
}
