package io.fenceguard.core;

import java.time.Duration;

/** A read-only view of a lease a manager holds, for monitoring; it cannot release anything. */
public record LeaseSnapshot(Fence fence, String holder, Duration remaining, boolean valid) {
}
