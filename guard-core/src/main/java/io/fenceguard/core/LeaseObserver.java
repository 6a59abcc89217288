package io.fenceguard.core;

import java.time.Duration;

/**
 * Told of what happens to a manager's leases, for metrics and logs. Called on the acquiring thread
 * (acquired, not obtained) or the watchdog's (lost): keep it short and do not throw.
 */
public interface LeaseObserver {

    /** A new lease (not a re-entry) was granted after waiting {@code waited}. */
    default void acquired(Lease lease, Duration waited) {
    }

    /** No lease was obtained within the wait. */
    default void notObtained(ResourceName resource, Duration waited) {
    }

    /** A lease was lost. */
    default void lost(Lease lease, LeaseLossReason reason) {
    }
}
