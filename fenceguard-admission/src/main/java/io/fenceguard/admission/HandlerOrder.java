package io.fenceguard.admission;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Handlers of one resource start in token order on this instance: a handler whose request was
 * admitted with token 5 is refused (409, stale) when a handler with a newer token of the same resource
 * has already started here, in flight or done. Admission alone lets the older one start late (its
 * request was admitted first, a newer request overtook it between admission and handler); this closes
 * that window. It does not stop a handler that is already running: its own fenced writes do that.
 * Per instance; across instances the high-water store orders the admissions.
 */
public final class HandlerOrder {

    private final int maxResources;
    private final ConcurrentMap<ResourceName, Started> started = new ConcurrentHashMap<>();

    private record Started(FencingToken newest, int inFlight) {
    }

    private HandlerOrder(int maxResources) {
        this.maxResources = maxResources;
    }

    /** Remembers up to {@code maxResources} resources without a handler in flight (then forgets idle ones). */
    public static HandlerOrder create(int maxResources) {
        if (maxResources < 1) {
            throw new IllegalArgumentException("maxResources must be positive");
        }
        return new HandlerOrder(maxResources);
    }

    public static HandlerOrder create() {
        return create(100_000);
    }

    /**
     * The verdict on starting the handler of {@code admission}: admitted (then call {@link #exit} when
     * it ends), or refused as stale when a newer token's handler has started here.
     */
    public Verdict enter(Admission admission) {
        FencingToken token = admission.presented().token();
        FencingToken[] newer = new FencingToken[1];
        started.compute(admission.presented().resource(), (resource, current) -> {
            if (current != null && current.newest().isNewerThan(token)) {
                newer[0] = current.newest();
                return current;
            }
            return new Started(token, current == null ? 1 : current.inFlight() + 1);
        });
        if (newer[0] != null) {
            return Verdict.refused(Problem.stale(new Admission(admission.presented(), newer[0], Admission.Outcome.STALE)));
        }
        return Verdict.admitted(admission);
    }

    /** The handler of {@code admission}, entered before, has ended. */
    public void exit(Admission admission) {
        started.computeIfPresent(admission.presented().resource(),
                (resource, current) -> new Started(current.newest(), Math.max(0, current.inFlight() - 1)));
        if (started.size() > maxResources) {
            started.values().removeIf(entry -> entry.inFlight() == 0);
        }
    }

    @Override
    public String toString() {
        return "HandlerOrder[" + started.size() + " resources]";
    }
}
