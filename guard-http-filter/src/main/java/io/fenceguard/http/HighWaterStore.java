package io.fenceguard.http;

import io.fenceguard.core.Fence;

/**
 * The highest token seen per resource, shared by every instance that fences the resource.
 * {@link #admit} compares and updates atomically: a newer token claims the resource, the same token
 * continues, an older one is stale and changes nothing.
 *
 * <p>Implementations fail closed: when the store cannot answer they throw, and the request is refused.
 */
@FunctionalInterface
public interface HighWaterStore {

    Admission admit(Fence presented);
}
