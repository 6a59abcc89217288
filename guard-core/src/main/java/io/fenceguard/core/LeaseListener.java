package io.fenceguard.core;

/**
 * Told once when a lease is lost (not when it is released). Runs on the manager's event executor,
 * never on the thread that renews leases or on a store client's I/O thread.
 */
@FunctionalInterface
public interface LeaseListener {

    void onLost(Lease lease, LeaseLossReason reason);
}
