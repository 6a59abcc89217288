package io.fenceguard.admission;

/**
 * A store that can admit in its callers' transactions (the JDBC store's {@code joiningTransactions}, in
 * fenceguard-jdbc): an admission then commits or rolls back with the handler's writes. Those who would answer
 * several requests with one call ({@link InboundFence#coalescingAdmissions}) ask it first: in a joined
 * transaction one request's rollback would take back the others' admissions.
 */
public interface TransactionJoiningStore {

    /** Whether admissions join the caller's open transaction. */
    boolean joinsTransactions();
}
