package io.fenceguard.jdbc;

/** When a guarded transaction claims its resource's high-water mark (its row in the high-water table). */
public enum ClaimMode {
    /** Only when the application calls {@link HighWaterMarks#claim}. */
    EXPLICIT,
    /**
     * Before the first statement of every transaction that runs while a lease is in context. An
     * auto-commit write under a lease runs in a short transaction of its own so that the claim and
     * the write commit together.
     */
    FIRST_STATEMENT
}
