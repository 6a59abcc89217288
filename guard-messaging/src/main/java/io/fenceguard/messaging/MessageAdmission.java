package io.fenceguard.messaging;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.FenceHeader;
import io.fenceguard.admission.FenceHeaderException;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.IssuedTokenBound;
import io.fenceguard.admission.IssuedTokens;
import io.fenceguard.admission.MarkHealing;
import io.fenceguard.admission.TokenBound;
import io.fenceguard.core.Fence;
import io.fenceguard.core.RefusalListener;
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
    private final RefusalListener listener;
    private final TokenBound bound;
    private final MarkHealing healing;
    private final IssuedTokenBound issuedBound;
    /**
     * The header value parsed last and its fence: a consumer's messages mostly repeat one producer's header, which
     * is then parsed once rather than per message (the bounds are still checked per message). A plain field: a
     * {@link Parsed} is immutable, and a thread that misses another's (or sees an older one) only parses again.
     */
    private Parsed lastParsed;

    private MessageAdmission(HighWaterStore store, RefusalListener listener, TokenBound bound,
            MarkHealing healing, IssuedTokenBound issuedBound) {
        this.store = Objects.requireNonNull(store, "store");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.bound = bound;
        this.healing = healing;
        this.issuedBound = issuedBound;
    }

    private MessageAdmission(HighWaterStore store, RefusalListener listener) {
        this(store, listener, null, null, null);
    }

    /**
     * This admission refusing tokens above {@code bound}'s ceiling ({@link Reason#OUT_OF_RANGE}) before the store
     * is touched, so that one forged or corrupted token cannot raise a resource's mark out of every holder's reach.
     */
    public MessageAdmission withTokenBound(TokenBound bound) {
        return new MessageAdmission(store, listener, Objects.requireNonNull(bound, "bound"), healing, issuedBound);
    }

    /**
     * This admission checking tokens against what the lock store granted per resource, as
     * {@code InboundFence.withIssuedTokens}: a token above the highest granted for its resource is refused
     * ({@link Reason#OUT_OF_RANGE}) before it sets a mark, and a mark above every granted token (admitted while
     * the store could not tell) is set back at the first holder's message ({@link MarkHealing}; the store must
     * support {@link HighWaterStore#reset}).
     */
    public MessageAdmission withIssuedTokens(IssuedTokens issued) {
        return new MessageAdmission(store, listener, bound, MarkHealing.of(store, issued), IssuedTokenBound.of(issued));
    }

    /** The healing of unminted marks ({@link #withIssuedTokens}), if any. */
    public java.util.Optional<MarkHealing> markHealing() {
        return java.util.Optional.ofNullable(healing);
    }

    /** {@code admission}, or after a stale one the admission once an unminted mark was set back. */
    private Admission healed(Admission admission) {
        return healing == null || admission.admitted() ? admission : healing.heal(admission);
    }

    public static MessageAdmission of(HighWaterStore store) {
        return new MessageAdmission(store, RefusalListener.none());
    }

    /** Also tells {@code listener} of every refusal (for metrics and the operator's view). */
    public static MessageAdmission of(HighWaterStore store, RefusalListener listener) {
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
                listener.refused(refused.refusal(source));
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
            listener.refused(refused.refusal(source));
        } catch (RuntimeException ignored) {
            // a listener never changes the answer
        }
        throw refused;
    }

    private Fence decide(String headerValue, String source) {
        Fence fence = presented(headerValue, source);
        Admission admission;
        try {
            admission = healed(store.admit(fence));
        } catch (RuntimeException e) {
            throw unavailable(fence, source, e);
        }
        if (!admission.admitted()) {
            throw stale(admission, source);
        }
        return fence;
    }

    private Fence presented(String headerValue, String source) {
        if (headerValue == null) {
            throw new MessageRefusedException(Reason.MISSING, "message from " + source + " carries no "
                    + MessageHeaders.FENCE + " header; fenced consumers admit only fenced messages",
                    null, null, null, null);
        }
        Fence fence;
        Parsed last = lastParsed;
        if (last != null && last.value().equals(headerValue)) {
            fence = last.fence();
        } else {
            try {
                fence = FenceHeader.parse(headerValue).fence();
            } catch (FenceHeaderException e) {
                throw new MessageRefusedException(Reason.MALFORMED, "message from " + source + ": " + e.getMessage(),
                        null, null, null, e);
            }
            lastParsed = new Parsed(headerValue, fence);
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
        if (issuedBound != null) {
            java.util.Optional<io.fenceguard.core.FencingToken> granted;
            try {
                granted = issuedBound.exceeded(fence);
            } catch (RuntimeException e) {
                throw new MessageRefusedException(Reason.STORE_UNAVAILABLE, "message from " + source + " for "
                        + fence + " refused: the lock store could not tell what it granted (" + e + ")",
                        fence.resource(), fence.token(), null, e);
            }
            if (granted.isPresent()) {
                throw new MessageRefusedException(Reason.OUT_OF_RANGE, "message from " + source + " for " + fence
                        + " refused: the token is above " + granted.get() + ", the highest the lock store has granted"
                        + " for the resource", fence.resource(), fence.token(), null, null);
            }
        }
        return fence;
    }

    private static MessageRefusedException unavailable(Fence fence, String source, RuntimeException e) {
        return new MessageRefusedException(Reason.STORE_UNAVAILABLE, "message from " + source + " for "
                + fence + " refused: the high-water store could not answer (" + e + ")",
                fence.resource(), fence.token(), null, e);
    }

    private static MessageRefusedException stale(Admission admission, String source) {
        Fence fence = admission.presented();
        return new MessageRefusedException(Reason.STALE, "stale message from " + source + ": token "
                + fence.token() + " for " + fence.resource() + " is older than the high-water mark "
                + admission.highWater(), fence.resource(), fence.token(), admission.highWater(), null);
    }

    /** A header value that parsed, and its fence. */
    private record Parsed(String value, Fence fence) {
    }

    /** A message of a batch: the values of its fence headers and where it came from (as for {@link #admitHeaders}). */
    public record Delivery(List<String> headerValues, String source) {
        public Delivery {
            headerValues = List.copyOf(headerValues);
            Objects.requireNonNull(source, "source");
        }
    }

    /** The answer for one message of a batch: its admitted fence, or why it was refused. */
    public record Decision(Fence fence, MessageRefusedException refusal) {
        public Decision {
            if ((fence == null) == (refusal == null)) {
                throw new IllegalArgumentException("a decision is either an admitted fence or a refusal");
            }
        }

        public boolean admitted() {
            return fence != null;
        }
    }

    /**
     * Admits a batch of messages (a consumer's poll) with one call of the store ({@link HighWaterStore#admitAll}:
     * one round trip on the Redis store): each message is admitted as {@link #admitHeaders} would admit it after
     * the ones before it, so per resource the highest token raises the mark and an older one after it is stale.
     * One decision per delivery, in order; a refusal is also told to the listener. When the store cannot answer,
     * every fenced message of the batch is refused ({@link Reason#STORE_UNAVAILABLE}).
     */
    public List<Decision> admitAll(List<Delivery> deliveries) {
        Decision[] decisions = new Decision[deliveries.size()];
        // A poll mostly repeats a few fences (one producer's lease, many records): each header value is parsed
        // once, and the store is asked once per run of one fence on one resource, since the same fence right
        // after itself on its resource gets the same answer (admitted: the mark is its token; stale: unchanged).
        java.util.Map<String, Fence> parsed = new java.util.HashMap<>();
        java.util.Map<io.fenceguard.core.ResourceName, Integer> lastAsked = new java.util.HashMap<>();
        List<Fence> asked = new java.util.ArrayList<>();
        int[] answerOf = new int[deliveries.size()];
        // The header of the message before, when it was admissible: the same header right after it is the same
        // question to the store, answered without parsing or looking anything up.
        String previousValue = null;
        int previousAnswer = -1;
        for (int i = 0; i < deliveries.size(); i++) {
            Delivery delivery = deliveries.get(i);
            List<String> values = delivery.headerValues();
            if (values.size() == 1 && values.get(0).equals(previousValue)) {
                answerOf[i] = previousAnswer;
                continue;
            }
            previousValue = null;
            Fence fence = values.size() == 1 ? parsed.get(values.get(0)) : null;
            if (fence == null) {
                try {
                    fence = fence(values, delivery.source());
                } catch (MessageRefusedException refused) {
                    decisions[i] = refuse(delivery.source(), refused);
                    continue;
                }
                parsed.put(values.get(0), fence);
            }
            Integer last = lastAsked.get(fence.resource());
            if (last == null || !asked.get(last).equals(fence)) {
                last = asked.size();
                asked.add(fence);
                lastAsked.put(fence.resource(), last);
            }
            answerOf[i] = last;
            previousValue = values.get(0);
            previousAnswer = last;
        }
        if (asked.isEmpty()) {
            return List.of(decisions);
        }
        List<Admission> admissions;
        RuntimeException failure = null;
        try {
            admissions = store.admitAll(asked);
            if (admissions.size() != asked.size()) {
                throw new IllegalStateException(store + " answered " + admissions.size() + " admissions for "
                        + asked.size() + " fences");
            }
        } catch (RuntimeException e) {
            admissions = null;
            failure = e;
        }
        // the admitted decision of each fence asked, shared by the messages it answers (a decision is a value)
        Decision[] admittedAs = new Decision[asked.size()];
        for (int i = 0; i < deliveries.size(); i++) {
            if (decisions[i] != null) {
                continue;
            }
            int answer = answerOf[i];
            if (admissions != null && admittedAs[answer] != null) {
                decisions[i] = admittedAs[answer];
                continue;
            }
            String source = deliveries.get(i).source();
            Fence fence = asked.get(answer);
            if (admissions == null) {
                decisions[i] = refuse(source, unavailable(fence, source, failure));
            } else {
                Admission admission;
                try {
                    admission = healed(admissions.get(answer));
                } catch (RuntimeException e) {
                    decisions[i] = refuse(source, unavailable(fence, source, e));
                    continue;
                }
                if (admission.admitted()) {
                    decisions[i] = admittedAs[answer] = new Decision(fence, null);
                } else {
                    decisions[i] = refuse(source, stale(admission, source));
                }
            }
        }
        return List.of(decisions);
    }

    private Decision refuse(String source, MessageRefusedException refused) {
        try {
            listener.refused(refused.refusal(source));
        } catch (RuntimeException ignored) {
            // a listener never changes the answer
        }
        return new Decision(null, refused);
    }

    /** The presented fence of a message, checked against the bound, not yet against the store. */
    private Fence fence(List<String> headerValues, String source) {
        if (headerValues.size() > 1) {
            throw new MessageRefusedException(Reason.MALFORMED, "message from " + source + " carries "
                    + headerValues.size() + " " + MessageHeaders.FENCE + " headers; exactly one is admitted",
                    null, null, null, null);
        }
        return presented(headerValues.isEmpty() ? null : headerValues.get(0), source);
    }
}
