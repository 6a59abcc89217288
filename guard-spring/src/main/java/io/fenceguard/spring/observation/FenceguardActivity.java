package io.fenceguard.spring.observation;

import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.LeaseObserver;
import io.fenceguard.core.ResourceName;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What this instance has seen, for the {@code fenceguard} actuator endpoint: the leases it acquired (so an
 * operator can release one), the high-water marks its stores answered, and its most recent refusals. Memory
 * is bounded: at most {@code capacity} refusals and high-water marks are kept, the oldest dropped first.
 */
public class FenceguardActivity implements LeaseObserver {

    /** One refused write or message, as the endpoint lists it. */
    public record RecentRefusal(Instant at, String layer, String reason, String resource, String token, String highWater,
                          String detail) {
    }

    /** The high-water mark a store answered for a resource, and what it decided then. */
    public record HighWater(String resource, long highWater, String lastOutcome, Instant at) {
    }

    private final int capacity;
    private final Map<ResourceName, Lease> acquired = new ConcurrentHashMap<>();
    private final Deque<RecentRefusal> refusals = new ArrayDeque<>();
    private final Map<String, HighWater> highWaters = new LinkedHashMap<>(16, 0.75f, true);

    public FenceguardActivity(int capacity) {
        this.capacity = Math.max(1, capacity);
    }

    @Override
    public void acquired(Lease lease, Duration waited) {
        acquired.put(lease.resource(), lease);
    }

    @Override
    public void lost(Lease lease, LeaseLossReason reason) {
        acquired.remove(lease.resource(), lease);
    }

    /** The lease this instance acquired on {@code resource} and still holds. */
    public Optional<Lease> held(ResourceName resource) {
        Lease lease = acquired.get(resource);
        if (lease != null && !lease.isValid()) {
            acquired.remove(resource, lease);
            return Optional.empty();
        }
        return Optional.ofNullable(lease);
    }

    public void refused(RecentRefusal refusal) {
        synchronized (refusals) {
            refusals.addFirst(refusal);
            while (refusals.size() > capacity) {
                refusals.removeLast();
            }
        }
    }

    /** Most recent first. */
    public List<RecentRefusal> recentRefusals() {
        synchronized (refusals) {
            return new ArrayList<>(refusals);
        }
    }

    public void sawHighWater(Fence presented, long highWater, String outcome) {
        String resource = presented.resource().value();
        synchronized (highWaters) {
            highWaters.put(resource, new HighWater(resource, highWater, outcome, Instant.now()));
            if (highWaters.size() > capacity) {
                highWaters.remove(highWaters.keySet().iterator().next());
            }
        }
    }

    /** Most recently seen last. */
    public List<HighWater> highWaterMarks() {
        synchronized (highWaters) {
            return new ArrayList<>(highWaters.values());
        }
    }
}
