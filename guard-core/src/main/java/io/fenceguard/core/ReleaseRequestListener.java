package io.fenceguard.core;

/**
 * Told when another party asks the holder of a lease to release it ({@link LeaseManager#requestRelease}). The
 * holder decides: nothing is released unless the listener closes the lease. Runs on the manager's event executor,
 * one request at a time and in the order the lock store passed them on; never told once the lease is lost or
 * released.
 */
@FunctionalInterface
public interface ReleaseRequestListener {

    /** @param reason why the release is asked for, as the asking party gave it */
    void onReleaseRequested(Lease lease, String reason);
}
