package io.fenceguard.core;

import java.time.Duration;

/**
 * Told of what happens to a manager's leases, for metrics and logs. {@code acquiring}, {@code acquired},
 * {@code notObtained} and {@code failed} run on the acquiring thread; {@code renewed}, {@code renewalFailed},
 * {@code atRisk}, {@code releaseRequested} and {@code lost} on the manager's event executor (never on the store's own threads).
 * An observer that throws is logged and ignored: it never costs a caller its lease.
 */
public interface LeaseObserver {

    /**
     * A new lease (not a re-entry) is about to be asked of the store; exactly one of {@code acquired},
     * {@code notObtained} or {@code failed} follows on the same thread.
     */
    default void acquiring(ResourceName resource) {
    }

    /** A new lease (not a re-entry) was granted after waiting {@code waited}. */
    default void acquired(Lease lease, Duration waited) {
    }

    /** No lease was obtained within the wait. */
    default void notObtained(ResourceName resource, Duration waited) {
    }

    /** Asking the store failed (it is unavailable, the thread was interrupted…) after {@code waited}. */
    default void failed(ResourceName resource, Duration waited, Throwable error) {
    }

    /**
     * The store confirmed a renewal of {@code lease}, {@code roundTrip} after it was sent; the lease now
     * runs from that sending time.
     */
    default void renewed(Lease lease, Duration roundTrip) {
    }

    /**
     * A renewal of {@code lease} could not be sent or got no answer (the store is unreachable or slow); it is
     * tried again within the lease. (A renewal the store refuses ends the lease: {@link #lost}.)
     */
    default void renewalFailed(Lease lease, Throwable error) {
    }

    /**
     * {@code lease} is at risk: renewals failed or went unanswered and only {@code remaining} (less than
     * {@link LeaseConfig#atRiskShare()} of it) is left. Once per risk episode; a confirmed renewal ends the episode.
     */
    default void atRisk(Lease lease, Duration remaining) {
    }

    /** Another party asked the holder of {@code lease} to release it, and its {@link ReleaseRequestListener}s were told. */
    default void releaseRequested(Lease lease, String reason) {
    }

    /** A lease was lost. */
    default void lost(Lease lease, LeaseLossReason reason) {
    }
}
