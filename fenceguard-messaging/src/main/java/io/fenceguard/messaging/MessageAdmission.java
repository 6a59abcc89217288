package io.fenceguard.messaging;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.FenceHeader;
import io.fenceguard.admission.FenceHeaderException;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.TokenBound;
import io.fenceguard.core.Fence;
import io.fenceguard.messaging.MessageRefusedException.Reason;
import java.util.List;
import java.util.Objects;

/**
 * Admits an incoming message only with a current fence: the header is parsed strictly and the fence
 * presented to a {@link HighWaterStore} (the same stores as HTTP admission, so a resource's high-water
 * mark is shared by its HTTP endpoints and its consumers). A newer token claims the resource, the same
 * token continues, anything else is refused with a {@link MessageRefusedException}. With a
 * {@link TokenBound} ({@link #withTokenBound}) a token above what can have been minted by now is refused
 * before it reaches the store, as over HTTP.
 */
public final class MessageAdmission {

    private final HighWaterStore store;
    private final MessageRefusalListener listener;
    private final TokenBound bound;

    private MessageAdmission(HighWaterStore store, MessageRefusalListener listener, TokenBound bound) {
        this.store = Objects.requireNonNull(store, "store");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.bound = bound;
    }

    private MessageAdmission(HighWaterStore store, MessageRefusalListener listener) {
        this(store, listener, null);
    }

    /**
     * This admission refusing tokens above {@code bound}'s ceiling ({@link Reason#OUT_OF_RANGE}) before the store
     * is touched, so that one forged or corrupted token cannot raise a resource's mark out of every holder's reach.
     */
    public MessageAdmission withTokenBound(TokenBound bound) {
        return new MessageAdmission(store, listener, Objects.requireNonNull(bound, "bound"));
    }

    public static MessageAdmission of(HighWaterStore store) {
        return new MessageAdmission(store, (source, refusal) -> { });
    }

    /** Also tells {@code listener} of every refusal (for metrics and the operator's view). */
    public static MessageAdmission of(HighWaterStore store, MessageRefusalListener listener) {
        return new MessageAdmission(store, listener);
    }

    /**
     * The admitted fence of a message whose fence header has {@code headerValue}.
     *
     * @param source where the message came from, for the refusal's message (such as {@code "kafka:orders"})
     * @throws MessageRefusedException when the message must not be processed
     */
    public Fence admit(String headerValue, String source) {
        try {
            return decide(headerValue, source);
        } catch (MessageRefusedException refused) {
            try {
                listener.refused(source, refused);
            } catch (RuntimeException ignored) {
                // a listener never changes the answer
            }
            throw refused;
        }
    }

    /**
     * The admitted fence of a message whose fence headers have {@code headerValues}: exactly one is admitted;
     * none is {@code MISSING}, several are {@code MALFORMED} (which one counts would be ambiguous).
     *
     * @throws MessageRefusedException when the message must not be processed
     */
    public Fence admitHeaders(List<String> headerValues, String source) {
        if (headerValues.size() > 1) {
            return admit(new MessageRefusedException(Reason.MALFORMED, "message from " + source + " carries "
                    + headerValues.size() + " " + MessageHeaders.FENCE + " headers; exactly one is admitted",
                    null, null, null, null), source);
        }
        return admit(headerValues.isEmpty() ? null : headerValues.get(0), source);
    }

    private Fence admit(MessageRefusedException refused, String source) {
        try {
            listener.refused(source, refused);
        } catch (RuntimeException ignored) {
            // a listener never changes the answer
        }
        throw refused;
    }

    private Fence decide(String headerValue, String source) {
        if (headerValue == null) {
            throw new MessageRefusedException(Reason.MISSING, "message from " + source + " carries no "
                    + MessageHeaders.FENCE + " header; fenced consumers admit only fenced messages",
                    null, null, null, null);
        }
        Fence fence;
        try {
            fence = FenceHeader.parse(headerValue).fence();
        } catch (FenceHeaderException e) {
            throw new MessageRefusedException(Reason.MALFORMED, "message from " + source + ": " + e.getMessage(),
                    null, null, null, e);
        }
        if (bound != null) {
            boolean allowed;
            try {
                allowed = bound.allows(fence.token());
            } catch (RuntimeException e) {
                throw new MessageRefusedException(Reason.STORE_UNAVAILABLE, "message from " + source + " for "
                        + fence + " refused: the token bound could not be read (" + e + ")",
                        fence.resource(), fence.token(), null, e);
            }
            if (!allowed) {
                throw new MessageRefusedException(Reason.OUT_OF_RANGE, "message from " + source + " for " + fence
                        + " refused: the token is above the highest that can have been minted by now",
                        fence.resource(), fence.token(), null, null);
            }
        }
        Admission admission;
        try {
            admission = store.admit(fence);
        } catch (RuntimeException e) {
            throw new MessageRefusedException(Reason.STORE_UNAVAILABLE, "message from " + source + " for "
                    + fence + " refused: the high-water store could not answer (" + e + ")",
                    fence.resource(), fence.token(), null, e);
        }
        if (!admission.admitted()) {
            throw new MessageRefusedException(Reason.STALE, "stale message from " + source + ": token "
                    + fence.token() + " for " + fence.resource() + " is older than the high-water mark "
                    + admission.highWater(), fence.resource(), fence.token(), admission.highWater(), null);
        }
        return fence;
    }
}
