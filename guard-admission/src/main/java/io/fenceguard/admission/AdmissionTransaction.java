package io.fenceguard.admission;

/**
 * A transaction around a fenced request: the admission, the idempotency record and the handler run in
 * it and commit together, or roll back together. With a {@code JdbcHighWaterStore} on the handler's
 * database and a transaction the handler joins (Spring: a {@code TransactionTemplate} on the same
 * DataSource, whose handlers' {@code @Transactional} methods participate), that is one commit.
 */
@FunctionalInterface
public interface AdmissionTransaction {

    /**
     * Runs {@code work} in a transaction; commits when it answers {@code true}, rolls back when it answers
     * {@code false} or throws.
     */
    void run(Work work) throws Exception;

    /** The work of one fenced request; answers whether to commit. */
    @FunctionalInterface
    interface Work {
        boolean run() throws Exception;
    }
}
