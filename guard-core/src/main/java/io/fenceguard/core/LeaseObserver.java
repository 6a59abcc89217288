package io.fenceguard.core;

import java.time.Duration;

/**
 * Told of what happens to a manager's leases, for metrics and logs. {@code acquired} and
 * {@code notObtained} run on the acquiring thread, {@code lost} on the manager's event executor.
 * An observer that throws is logged and ignored: it never costs a caller its lease.
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
