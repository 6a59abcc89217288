package io.fenceguard.core;

/**
 * How a lease holds its resource, as Chubby's sequencer carries it next to the token.
 *
 * <p>A provider that grants {@link #SHARED} leases gives every grant of a resource, shared or exclusive,
 * a token from one counter that only grows: so an exclusive (writer's) token is greater than the token of
 * every lease granted before it, shared or not, and a write that carries an earlier reader's or writer's
 * token is refused at the resource once the writer has written.
 */
public enum LeaseMode {

    /** One holder at a time (a write lock). Every provider grants it. */
    EXCLUSIVE,
    /**
     * Any number of holders at once while no exclusive lease is held or waited for before them (a read
     * lock). Only providers whose {@code modes()} list it grant it.
     */
    SHARED
}
