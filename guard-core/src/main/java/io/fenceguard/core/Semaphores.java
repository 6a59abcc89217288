package io.fenceguard.core;

import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseRequest;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The semaphores of a {@link LeaseManager} ({@link LeaseManager#acquirePermit}): a permit is an exclusive lease on
 * one of the slots {@code <resource>#0} to {@code <resource>#<permits - 1>}, held by the manager like any other
 * lease, fenced with the slot's token or with one taken from the resource's counter ({@link PermitFencing}).
 */
final class Semaphores {

    /** The manager's logger: what is logged about a lease is found in one place. */
    private static final System.Logger log = System.getLogger(LeaseManager.class.getName());
    /** How long a permit's wait stays on one slot before it looks at all of them again. */
    private static final long WAIT_STEP_NANOS = Duration.ofMillis(100).toNanos();

    private final LeaseManager manager;
    private final LeaseObservers observers;

    Semaphores(LeaseManager manager, LeaseObservers observers) {
        this.manager = manager;
        this.observers = observers;
    }

    Lease acquirePermit(ResourceName resource, int permits, PermitFencing fencing, Duration wait) {
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(fencing, "fencing");
        LeaseManager.requireWait(wait);
        if (permits < 1 || permits > LeaseManager.MAX_PERMITS) {
            throw new IllegalArgumentException("permits must be between 1 and " + LeaseManager.MAX_PERMITS + ", got "
                    + permits + " for '" + resource + "'");
        }
        List<ResourceName> slots = new ArrayList<>(permits);
        for (int i = 0; i < permits; i++) {
            slots.add(ResourceName.of(resource.value() + "#" + i));
        }
        if (fencing == PermitFencing.PER_RESOURCE && manager.holdsOnThisThread(resource)) {
            throw new IllegalStateException("this thread holds a lease on '" + resource + "' and asks for a permit fenced"
                    + " per resource, whose token is taken on '" + resource + "' (it would wait for itself)");
        }
        WaitDeadline deadline = WaitDeadline.after(wait);
        return observers.observed(resource, () -> obtain(resource, slots, fencing, wait, deadline));
    }

    private Lease obtain(ResourceName resource, List<ResourceName> slots, PermitFencing fencing, Duration wait,
                         WaitDeadline deadline) {
        int n = slots.size();
        while (true) {
            int first = ThreadLocalRandom.current().nextInt(n);
            for (int i = 0; i < n; i++) {
                LeaseRequest request = manager.newRequest(slots.get((first + i) % n), LeaseMode.EXCLUSIVE);
                Grant grant;
                try {
                    grant = manager.provider().acquire(request, Duration.ZERO);
                } catch (LeaseTimeoutException busy) {
                    continue;
                }
                return hold(resource, request, grant, fencing, wait, deadline);
            }
            long left = deadline.leftNanos();
            if (left <= 0) {
                throw new LeaseTimeoutException(resource, wait, "all " + n + " permits are held");
            }
            // Every slot is held: wait on one, woken by its release, then look at all of them again.
            LeaseRequest request = manager.newRequest(slots.get(first), LeaseMode.EXCLUSIVE);
            Grant grant;
            try {
                grant = manager.provider().acquire(request, Duration.ofNanos(Math.min(left, WAIT_STEP_NANOS)));
            } catch (LeaseTimeoutException busy) {
                continue;
            }
            return hold(resource, request, grant, fencing, wait, deadline);
        }
    }

    /** Holds a granted slot; fenced per resource, with a token taken from the resource's counter right after. */
    private Lease hold(ResourceName resource, LeaseRequest request, Grant grant, PermitFencing fencing, Duration wait,
                       WaitDeadline deadline) {
        if (fencing == PermitFencing.PER_SLOT) {
            return manager.hold(request, grant, new Fence(request.resource(), grant.token()));
        }
        FencingToken token;
        try {
            // A lease on the resource, held for one round trip: its token is above every one granted before on it.
            LeaseRequest counter = new LeaseRequest(resource, request.holder() + ":token", manager.config().leaseTime());
            Grant minted = manager.provider().acquire(counter, deadline.left());
            token = minted.token();
            releaseQuietly(counter, minted);
        } catch (RuntimeException | Error e) {
            releaseQuietly(request, grant);
            if (e instanceof LeaseTimeoutException) {
                throw new LeaseTimeoutException(resource, wait, "a slot was free, but the resource's token could not"
                        + " be taken in time; the slot was given back");
            }
            throw e;
        }
        return manager.hold(request, grant, new Fence(resource, token));
    }

    private void releaseQuietly(LeaseRequest request, Grant grant) {
        try {
            manager.provider().release(request, grant);
        } catch (RuntimeException e) {
            // The lock expires by itself; its holder id is never used again.
            log.log(Level.WARNING, () -> "could not release '" + request.resource() + "' held by " + request.holder()
                    + ": " + e.getMessage());
        }
    }
}
