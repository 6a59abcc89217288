package io.fenceguard.http;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.util.Objects;

/** What a {@link HighWaterStore} decided about a presented token. */
public final class Admission {

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

    private final ResourceName resource;
    private final FencingToken presented;
    private final FencingToken highWater;
    private final Outcome outcome;

    private Admission(ResourceName resource, FencingToken presented, FencingToken highWater, Outcome outcome) {
        this.resource = Objects.requireNonNull(resource, "resource");
        this.presented = Objects.requireNonNull(presented, "presented");
        this.highWater = Objects.requireNonNull(highWater, "highWater");
        this.outcome = Objects.requireNonNull(outcome, "outcome");
    }

    /** The decision implied by the presented token and the high-water mark before it was presented. */
    public static Admission of(ResourceName resource, FencingToken presented, FencingToken previousHighWater) {
        if (previousHighWater == null || presented.isNewerThan(previousHighWater)) {
            return new Admission(resource, presented, presented, Outcome.CLAIMED);
        }
        return presented.equals(previousHighWater)
                ? new Admission(resource, presented, presented, Outcome.CONTINUED)
                : new Admission(resource, presented, previousHighWater, Outcome.STALE);
    }

    public static Admission claimed(ResourceName resource, FencingToken presented) {
        return new Admission(resource, presented, presented, Outcome.CLAIMED);
    }

    public ResourceName resource() {
        return resource;
    }

    public FencingToken presented() {
        return presented;
    }

    /** The high-water mark after the decision. */
    public FencingToken highWater() {
        return highWater;
    }

    public Outcome outcome() {
        return outcome;
    }

    public boolean admitted() {
        return outcome.admitted();
    }

    @Override
    public String toString() {
        return "Admission[" + resource + ", token " + presented + " " + outcome + ", high-water " + highWater + "]";
    }
}
