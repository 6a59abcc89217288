package io.fenceguard.messaging;

import io.fenceguard.admission.IdempotencyStore;
import io.fenceguard.admission.IdempotencyStore.Claim;
import io.fenceguard.admission.IdempotencyStore.RecordedResponse;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.messaging.MessageRefusedException.Reason;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Applies each message once per {@value MessageHeaders#IDEMPOTENCY_KEY}, however often it is delivered: the
 * outbox's relay sends at least once, so after a crash between send and mark a message comes again. The key is
 * claimed in an {@link IdempotencyStore} (the same stores as HTTP idempotency) for the resource of the admitted
 * fence; the first delivery runs, a repeat whose first delivery completed is skipped.
 *
 * <p>Exactly once needs the claim to commit with the message's effects: call {@link #applyOnce} inside the
 * transaction that applies the message, with a {@code JdbcHighWaterStore} (fenceguard-jdbc) on the same
 * database that joins it ({@code joiningTransactions}). Otherwise a crash between the effects' commit and the
 * claim's completion leaves the key claimed, and a redelivery is refused as in progress until the store gives
 * up on the claim ({@code JdbcHighWaterStore.IN_PROGRESS_TIMEOUT}).
 */
public final class MessageIdempotency {

    private static final RecordedResponse APPLIED = new RecordedResponse(200, null, new byte[0]);

    private final IdempotencyStore store;

    private MessageIdempotency(IdempotencyStore store) {
        this.store = Objects.requireNonNull(store, "store");
    }

    public static MessageIdempotency of(IdempotencyStore store) {
        return new MessageIdempotency(store);
    }

    /**
     * As {@link #applyOnce(Fence, String, byte[], String, Runnable)} for the fence the listener runs under (bound by
     * {@code FencingRecordInterceptor} or {@code FencingListenerAdvice}).
     *
     * @throws IllegalStateException when no fence is bound to this thread: only admitted messages are applied
     */
    public boolean applyOnce(String key, byte[] payload, String source, Runnable apply) {
        Fence admitted = LeaseContext.current().map(Lease::fence).orElseThrow(() -> new IllegalStateException(
                "message from " + source + " is applied once per key only under its admitted fence, and none is bound;"
                        + " run the listener behind fenceguard's admission"));
        return applyOnce(admitted, key, payload, source, apply);
    }

    /**
     * Runs {@code apply} when this is the first delivery of {@code key} for {@code admitted}'s resource.
     *
     * @param payload the message's body: the key is bound to it, so a key reused for another body is refused
     * @return {@code true} when {@code apply} ran, {@code false} for a repeat of a message already applied
     * @throws MessageRefusedException {@link Reason#MISSING} without a key, {@link Reason#KEY_REUSED} when the key
     *         came first with another body, {@link Reason#STORE_UNAVAILABLE} when the store could not answer
     * @throws FenceguardException when the key's first delivery has not completed yet (retry later)
     */
    public boolean applyOnce(Fence admitted, String key, byte[] payload, String source, Runnable apply) {
        Objects.requireNonNull(admitted, "admitted");
        Objects.requireNonNull(apply, "apply");
        if (key == null || key.isBlank()) {
            throw new MessageRefusedException(Reason.MISSING, "message from " + source + " for " + admitted
                    + " carries no " + MessageHeaders.IDEMPOTENCY_KEY + " header; it cannot be applied once",
                    admitted.resource(), admitted.token(), null, null);
        }
        Claim claim;
        try {
            claim = store.claim(admitted, key, fingerprint(payload));
        } catch (RuntimeException e) {
            throw new MessageRefusedException(Reason.STORE_UNAVAILABLE, "message from " + source + " for " + admitted
                    + " refused: the idempotency store could not answer (" + e + ")", admitted.resource(),
                    admitted.token(), null, e);
        }
        switch (claim.kind()) {
            case COMPLETED:
                return false;
            case OTHER_REQUEST:
                throw new MessageRefusedException(Reason.KEY_REUSED, "message from " + source + " for " + admitted
                        + " refused: its " + MessageHeaders.IDEMPOTENCY_KEY + " '" + key
                        + "' came first with another payload", admitted.resource(), admitted.token(), null, null);
            case IN_PROGRESS:
                throw new FenceguardException("message from " + source + " with " + MessageHeaders.IDEMPOTENCY_KEY + " '"
                        + key + "' is being applied by another delivery; retry later", admitted.resource(),
                        admitted.token(), null);
            default:
                break;
        }
        try {
            apply.run();
        } catch (RuntimeException | Error e) {
            try {
                store.abandon(admitted.resource(), key);
            } catch (RuntimeException abandonFailed) {
                e.addSuppressed(abandonFailed);
            }
            throw e;
        }
        store.complete(admitted.resource(), key, APPLIED);
        return true;
    }

    private static String fingerprint(byte[] payload) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(payload == null ? new byte[0] : payload));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
