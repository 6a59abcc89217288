package io.fenceguard.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Takes the leases of a {@link MultiLease} ({@link LeaseManager#acquireAll}): one after the other in the canonical
 * order of the resource names, so that holders asking for overlapping sets never wait for each other in a cycle;
 * all or none, within one wait.
 */
final class MultiLeaseAcquisition {

    private MultiLeaseAcquisition() {
    }

    static MultiLease acquireAll(LeaseManager manager, Duration wait, ResourceName... resources) {
        Objects.requireNonNull(resources, "resources");
        LeaseManager.requireWait(wait);
        SortedSet<ResourceName> ordered = new TreeSet<>();
        for (ResourceName resource : resources) {
            ordered.add(Objects.requireNonNull(resource, "resource"));
        }
        if (ordered.isEmpty()) {
            throw new IllegalArgumentException("acquireAll needs at least one resource");
        }
        WaitDeadline deadline = WaitDeadline.after(wait);
        List<Lease> taken = new ArrayList<>(ordered.size());
        try {
            for (ResourceName resource : ordered) {
                try {
                    taken.add(manager.acquire(resource, deadline.left()));
                } catch (LeaseTimeoutException e) {
                    throw new LeaseTimeoutException(resource, wait, "not all of " + ordered + " were obtained ("
                            + taken.size() + " taken before were released): " + e.getMessage());
                }
            }
            for (Lease lease : taken) {
                lease.ensureValid();
            }
        } catch (RuntimeException | Error e) {
            try {
                MultiLease.closeAll(taken);
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        return new MultiLease(taken);
    }
}
