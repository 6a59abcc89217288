package io.fenceguard.core;

import java.time.Duration;

/**
 * Told when a held lease is at risk: its renewals fail or go unanswered and less than
 * {@link LeaseConfig#atRiskShare()} of it is left. Told once per such episode; a renewal that succeeds again ends
 * the episode, and a later one is told again. Never told once the lease is lost or released. Runs on the manager's
 * event executor, never on the thread that renews leases or on a store client's I/O thread.
 */
@FunctionalInterface
public interface LeaseAtRiskListener {

    /** @param remaining the time left when the risk was noticed */
    void onAtRisk(Lease lease, Duration remaining);
}
