package io.fenceguard.core;

/** Why a lease stopped being held. */
public enum LeaseLossReason {
    /** Its time ran out before a renewal reached the lock store. */
    EXPIRED("its time ran out without a successful renewal"),
    /** The lock store answered a renewal with "not yours": the lock was gone or belonged to another holder. */
    RENEWAL_REJECTED("the lock store no longer holds it for this holder"),
    /** The lock store told of the loss itself, for example a ZooKeeper session that expired. */
    REVOKED("the lock store revoked it"),
    /**
     * The lock store's clock jumped forward by more than this process's monotonic clock allows: the store
     * may let the lease expire earlier than this process counts, so the lease is not trusted any longer.
     */
    CLOCK_JUMP("the lock store's clock jumped forward, so its expiry of the lease can no longer be trusted");

    private final String description;

    LeaseLossReason(String description) {
        this.description = description;
    }

    public String describe() {
        return description;
    }
}
