package io.fenceguard.core;

/** Told when a lease is lost (not when it is released). Called on the watchdog's thread: keep it short. */
@FunctionalInterface
public interface LeaseListener {

    void onLost(Lease lease, LeaseLossReason reason);
}
