package io.fenceguard.core;

import io.fenceguard.core.internal.LeaseState;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The leases one {@link LeaseManager} holds: by holder id (release requests, snapshots, release) and by thread and
 * resource (re-entry on the same thread).
 */
final class HeldLeases {

    /** A held lease: its state, its key for re-entry, and its first handle (the one observers are told of). */
    record Held(LeaseState state, ThreadKey threadKey, Lease lease) {
    }

    /** A thread and a resource: a value to look up, not a string made for each look-up. */
    record ThreadKey(long thread, ResourceName resource) {
    }

    private final LeaseManager manager;
    private final Map<String, Held> byHolder = new ConcurrentHashMap<>();
    private final Map<ThreadKey, LeaseState> byThread = new ConcurrentHashMap<>();

    HeldLeases(LeaseManager manager) {
        this.manager = manager;
    }

    /** Records a lease granted to this thread. */
    void add(LeaseState state, Lease lease) {
        ThreadKey threadKey = threadKey(state.request().resource());
        byHolder.put(state.request().holder(), new Held(state, threadKey, lease));
        byThread.put(threadKey, state);
    }

    /** Forgets a lease at its final release. */
    void remove(LeaseState state) {
        Held entry = byHolder.remove(state.request().holder());
        if (entry != null) {
            byThread.remove(entry.threadKey(), state);
        }
    }

    Collection<Held> all() {
        return byHolder.values();
    }

    /** The first handle of the lease of {@code state}, or {@code fallback} when it is no longer held. */
    Lease primaryOf(LeaseState state, Lease fallback) {
        Held entry = byHolder.get(state.request().holder());
        return entry != null ? entry.lease() : fallback;
    }

    List<LeaseSnapshot> snapshots() {
        return byHolder.values().stream().map(Held::state).map(state -> new LeaseSnapshot(state.fence(),
                state.request().holder(), Duration.ofNanos(state.remainingNanos()), state.isValid())).toList();
    }

    /** Whether this thread holds a lease on {@code resource}. */
    boolean holdsOnThisThread(ResourceName resource) {
        return byThread.containsKey(threadKey(resource));
    }

    /**
     * A new handle on a lease this holder already has on {@code resource}, or null when it has none.
     *
     * @throws LeaseLostException when the lease it has is lost
     * @throws IllegalStateException when it holds a shared lease and asks for an exclusive one
     */
    Lease reenter(ResourceName resource, LeaseMode mode) {
        // Re-entry follows the context first, so a lease carried into an executor can be re-entered there.
        List<Lease> bound = LeaseContext.all();
        for (int i = bound.size() - 1; i >= 0; i--) {
            Lease lease = bound.get(i);
            // The resource held in the store: a permit fenced per resource holds a slot, not the resource.
            if (lease.isFrom(manager) && lease.state().request().resource().equals(resource)
                    && !lease.state().isReleased()) {
                return enter(upgradeRefused(lease.state(), mode));
            }
        }
        LeaseState state = byThread.get(threadKey(resource));
        return state == null ? null : enter(upgradeRefused(state, mode));
    }

    /** An exclusive lease covers a shared request; a shared one cannot become exclusive (it would wait for itself). */
    private static LeaseState upgradeRefused(LeaseState held, LeaseMode wanted) {
        if (wanted == LeaseMode.EXCLUSIVE && held.request().mode() == LeaseMode.SHARED) {
            throw new IllegalStateException("this holder has a shared lease on '" + held.fence().resource()
                    + "' and asks for an exclusive one: release the shared lease first (an upgrade would wait for itself)");
        }
        return held;
    }

    private Lease enter(LeaseState state) {
        if (state.enter()) {
            return new Lease(state, manager, state.request().holder());
        }
        state.isValid();
        if (state.lossReason() != null) {
            throw new LeaseLostException(state.fence().resource(), state.fence().token(), state.lossReason());
        }
        return null;
    }

    private static ThreadKey threadKey(ResourceName resource) {
        return new ThreadKey(Thread.currentThread().getId(), resource);
    }
}
