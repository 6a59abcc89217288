package io.fenceguard.spring.transaction;

import io.fenceguard.core.Lease;
import org.springframework.core.Ordered;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;

/**
 * Releases a {@code @Fenced} method's lease: at once, or, when the method ran inside a transaction that is
 * still open (a {@code @Fenced} DAO called from a {@code @Transactional} service or a
 * {@code TransactionTemplate}), after that transaction has committed or rolled back. The transaction's
 * writes were fenced with the lease's token; releasing before the commit would let a new holder in while
 * they can still be committed. Without spring-tx on the class path, always at once.
 */
public final class LeaseRelease {

    private static final boolean TRANSACTIONS = ClassUtils.isPresent(
            "org.springframework.transaction.support.TransactionSynchronizationManager", LeaseRelease.class.getClassLoader());

    private LeaseRelease() {
    }

    /** Closes {@code lease} now, or registers its closing after the current transaction's completion. */
    public static void release(Lease lease) {
        if (TRANSACTIONS && AfterCompletion.defer(lease)) {
            return;
        }
        lease.close();
    }

    /** Only loaded when spring-tx is present. */
    private static final class AfterCompletion implements TransactionSynchronization {

        private final Lease lease;

        private AfterCompletion(Lease lease) {
            this.lease = lease;
        }

        static boolean defer(Lease lease) {
            if (!TransactionSynchronizationManager.isSynchronizationActive()
                    || !TransactionSynchronizationManager.isActualTransactionActive()) {
                return false;
            }
            TransactionSynchronizationManager.registerSynchronization(new AfterCompletion(lease));
            return true;
        }

        @Override
        public void afterCompletion(int status) {
            lease.close();
        }

        @Override
        public int getOrder() {
            return Ordered.LOWEST_PRECEDENCE;
        }
    }
}
