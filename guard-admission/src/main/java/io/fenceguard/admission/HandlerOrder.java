package io.fenceguard.admission;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Handlers of one resource start in token order on this instance: a handler whose request was
 * admitted with token 5 is refused (409, stale) when a handler with a newer token of the same resource
 * has already started here and is still in flight or has succeeded. Admission alone lets the older one
 * start late (its request was admitted first, a newer request overtook it between admission and
 * handler); this closes that window. A handler that failed (an exception, or an answer of 400 or more:
 * {@link #exit}) leaves no mark here, so an older token starts again once the failed one is done. It
 * does not stop a handler that is already running: its own fenced writes do that. Per instance; across
 * instances the high-water store orders the admissions.
 */
public final class HandlerOrder {

    private final int maxResources;
    private final ConcurrentMap<ResourceName, Started> started = new ConcurrentHashMap<>();

    /** The newest token whose handler succeeded here ({@code null}: none), and the tokens of those in flight. */
    private record Started(FencingToken succeeded, List<FencingToken> inFlight) {

        FencingToken newest() {
            FencingToken newest = succeeded;
            for (FencingToken token : inFlight) {
                if (newest == null || token.isNewerThan(newest)) {
                    newest = token;
                }
            }
            return newest;
        }

        Started enter(FencingToken token) {
            List<FencingToken> more = new ArrayList<>(inFlight);
            more.add(token);
            return new Started(succeeded, List.copyOf(more));
        }

        /** Without one handler of {@code token}; {@code null} when nothing is left to remember. */
        Started exit(FencingToken token, boolean success) {
            List<FencingToken> fewer = new ArrayList<>(inFlight);
            fewer.remove(token);
            FencingToken newest = success && (succeeded == null || token.isNewerThan(succeeded)) ? token : succeeded;
            return newest == null && fewer.isEmpty() ? null : new Started(newest, List.copyOf(fewer));
        }
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
     * it ends), or refused as stale when a newer token's handler is in flight here or has succeeded.
     */
    public Verdict enter(Admission admission) {
        FencingToken token = admission.presented().token();
        FencingToken[] newer = new FencingToken[1];
        started.compute(admission.presented().resource(), (resource, current) -> {
            FencingToken newest = current == null ? null : current.newest();
            if (newest != null && newest.isNewerThan(token)) {
                newer[0] = newest;
                return current;
            }
            return (current == null ? new Started(null, List.of()) : current).enter(token);
        });
        if (newer[0] != null) {
            return Verdict.refused(Problem.stale(new Admission(admission.presented(), newer[0], Admission.Outcome.STALE)));
        }
        return Verdict.admitted(admission);
    }

    /**
     * The handler of {@code admission}, entered before, has ended: {@code succeeded} when it answered
     * below 400 without an exception. Only a handler that succeeded holds older tokens back afterwards.
     */
    public void exit(Admission admission, boolean succeeded) {
        FencingToken token = admission.presented().token();
        started.computeIfPresent(admission.presented().resource(), (resource, current) -> current.exit(token, succeeded));
        if (started.size() > maxResources) {
            started.values().removeIf(entry -> entry.inFlight().isEmpty());
        }
    }

    /**
     * {@code resource}'s mark was set back to {@code mark} ({@link MarkHealing#whenSetBack}): a handler that
     * succeeded here with a newer token no longer holds older ones back, since no lock store minted that token.
     */
    public void setBack(ResourceName resource, FencingToken mark) {
        started.computeIfPresent(resource, (name, current) -> current.succeeded() == null
                || !current.succeeded().isNewerThan(mark) ? current
                : current.inFlight().isEmpty() ? null : new Started(null, current.inFlight()));
    }

    @Override
    public String toString() {
        return "HandlerOrder[" + started.size() + " resources]";
    }
}
