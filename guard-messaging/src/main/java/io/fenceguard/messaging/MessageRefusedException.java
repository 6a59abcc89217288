package io.fenceguard.messaging;

import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Refusal;
import io.fenceguard.core.ResourceName;
import java.util.Locale;
import java.util.Optional;

/**
 * A consumer refused a message: its fence (or idempotency key) is missing, malformed or stale, or the
 * store could not answer. Never worth a retry: the same message gets the same answer, so error handlers dead-letter it
 * at once.
 */
public class MessageRefusedException extends FenceguardException {

    /** Why the message was refused. */
    public enum Reason {
        /** The message carries no fence. */
        MISSING,
        /** The fence header is not of the documented form. */
        MALFORMED,
        /** A newer token has already been admitted for the resource. */
        STALE,
        /** The high-water store (or the token bound) could not answer (fail closed). */
        STORE_UNAVAILABLE,
        /** The token is above the highest that can have been minted by now ({@link io.fenceguard.admission.TokenBound}). */
        OUT_OF_RANGE,
        /** The message's idempotency key came first with another payload ({@link MessageIdempotency}). */
        KEY_REUSED
    }

    private final Reason reason;
    private final transient FencingToken highWater;

    public MessageRefusedException(Reason reason, String message, ResourceName resource, FencingToken token,
            FencingToken highWater, Throwable cause) {
        super(message, resource, token, cause);
        this.reason = reason;
        this.highWater = highWater;
    }

    public Reason reason() {
        return reason;
    }

    /** The resource's high-water token, for a {@link Reason#STALE} refusal. */
    public Optional<FencingToken> highWater() {
        return Optional.ofNullable(highWater);
    }

    /**
     * This refusal of a message from {@code source} as every layer reports one, for the
     * {@link io.fenceguard.core.RefusalListener}: layer {@code MESSAGING}, the reason lower case ({@code stale}, …),
     * this exception the original.
     */
    public Refusal refusal(String source) {
        return Refusal.builder(Refusal.Layer.MESSAGING, reason.name().toLowerCase(Locale.ROOT)).resource(resource())
                .token(token()).highWater(highWater).where(source).detail(getMessage()).original(this).build();
    }

    /** The first {@code MessageRefusedException} in {@code failure}'s cause chain. */
    public static Optional<MessageRefusedException> in(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof MessageRefusedException refused) {
                return Optional.of(refused);
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return Optional.empty();
    }
}
