package io.fenceguard.core;

/** Why a lease stopped being held. */
public enum LeaseLossReason {
    /** Its time ran out before a renewal reached Redis. */
    EXPIRED("its time ran out without a successful renewal"),
    /** Redis answered a renewal with "not yours": the key was gone or belonged to another holder. */
    RENEWAL_REJECTED("Redis no longer holds it for this holder");

    private final String description;

    LeaseLossReason(String description) {
        this.description = description;
    }

    public String describe() {
        return description;
    }
}
