package io.fenceguard.core;

/**
 * What the writes under a permit of a semaphore ({@link LeaseManager#acquirePermit}) are fenced against: the slot
 * the permit holds, or the resource as a whole.
 */
public enum PermitFencing {

    /**
     * Each permit is a lease on a slot {@code <resource>#<i>} with that slot's own token: a write fenced with it is
     * checked against the slot's high-water mark. For work that is split by slot (a row, a partition, a connection
     * per slot): the {@code permits} holders never refuse each other, and a holder that lost its slot is refused
     * once the slot's next holder has written.
     */
    PER_SLOT,
    /**
     * Each permit still holds a slot, but its token comes from the one counter of the resource itself (the counter
     * of ordinary leases on it), taken right after the slot was granted: a write fenced with it is checked against
     * the resource's single high-water mark. A write is then admitted only while no permit granted later has
     * written: a stale holder is refused, and so is a valid holder of an older permit once a newer one wrote.
     */
    PER_RESOURCE
}
