package io.fenceguard.http;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * High-water marks in this process's memory: correct for a single instance of the resource server
 * only, and forgotten on restart (after which any token is admitted once again).
 */
public final class InMemoryHighWaterStore implements HighWaterStore {

    private final ConcurrentMap<ResourceName, FencingToken> highWater = new ConcurrentHashMap<>();

    private InMemoryHighWaterStore() {
    }

    public static InMemoryHighWaterStore create() {
        return new InMemoryHighWaterStore();
    }

    @Override
    public Admission admit(Fence presented) {
        Admission[] decision = new Admission[1];
        // compute runs atomically per key: the comparison and the update are one step.
        highWater.compute(presented.resource(), (name, previous) -> {
            decision[0] = Admission.of(presented, previous);
            return decision[0].highWater();
        });
        return decision[0];
    }

    @Override
    public String toString() {
        return "InMemoryHighWaterStore[" + highWater.size() + " resources]";
    }
}
