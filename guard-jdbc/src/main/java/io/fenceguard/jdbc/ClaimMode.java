package io.fenceguard.jdbc;

/** When a guarded transaction claims its resource's gate row. */
public enum GateMode {
    /** Only when the application calls {@link Gate#claim}. */
    EXPLICIT,
    /**
     * Before the first statement of every transaction that runs while a lease is in context. An
     * auto-commit write under a lease runs in a short transaction of its own so that the claim and
     * the write commit together.
     */
    FIRST_STATEMENT
}
