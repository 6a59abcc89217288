package io.fenceguard.admission;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import java.util.Objects;

/**
 * What a {@link HighWaterStore} decided about a presented fence: the fence, the resource's high-water
 * token after the decision, the outcome, and for a claim the mark it replaced when the store knows it
 * ({@code replaced}, {@code null} otherwise): what a claim whose request failed is set back to.
 */
public record Admission(Fence presented, FencingToken highWater, Outcome outcome, Replaced replaced) {

    /** The mark a claim replaced: {@code mark}, or no mark at all ({@code null}). */
    public record Replaced(FencingToken mark) {
    }

    /** The decision. */
    public enum Outcome {
        /** Newer than every token seen: it is now the high-water mark. */
        CLAIMED,
        /** Equal to the high-water mark: the current holder continues. */
        CONTINUED,
        /** Older than the high-water mark: refused, nothing changed. */
        STALE;

        public boolean admitted() {
            return this != STALE;
        }
    }

    public Admission {
        Objects.requireNonNull(presented, "presented");
        Objects.requireNonNull(highWater, "highWater");
        Objects.requireNonNull(outcome, "outcome");
        if (replaced != null && outcome != Outcome.CLAIMED) {
            throw new IllegalArgumentException("only a claim replaces a mark");
        }
    }

    /** A decision without the replaced mark (a claim that cannot be set back). */
    public Admission(Fence presented, FencingToken highWater, Outcome outcome) {
        this(presented, highWater, outcome, null);
    }

    /**
     * The decision implied by the presented fence and the resource's high-water token before it was
     * presented ({@code null}: the resource has none yet).
     */
    public static Admission of(Fence presented, FencingToken previousHighWater) {
        FencingToken token = presented.token();
        if (previousHighWater == null || token.isNewerThan(previousHighWater)) {
            return new Admission(presented, token, Outcome.CLAIMED, new Replaced(previousHighWater));
        }
        return token.equals(previousHighWater)
                ? new Admission(presented, token, Outcome.CONTINUED)
                : new Admission(presented, previousHighWater, Outcome.STALE);
    }

    /** The presented fence became the high-water mark, replacing a mark the store does not tell. */
    public static Admission claimed(Fence presented) {
        return new Admission(presented, presented.token(), Outcome.CLAIMED);
    }

    public boolean admitted() {
        return outcome.admitted();
    }

    @Override
    public String toString() {
        return "Admission[" + presented + " " + outcome + ", high-water " + highWater + "]";
    }
}
