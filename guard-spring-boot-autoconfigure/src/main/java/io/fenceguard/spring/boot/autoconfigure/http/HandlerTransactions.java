package io.fenceguard.spring.boot.autoconfigure.http;

import io.fenceguard.admission.AdmissionTransaction;
import io.fenceguard.admission.HighWaterStore;
import javax.sql.DataSource;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The JDBC store's admission inside the handler's transaction
 * ({@code fenceguard.http.store.join-handler-transaction}): the store reaches the DataSource through
 * Spring's transaction-aware proxy ({@code HighWaterStores}), and the filter opens a transaction of the application's
 * transaction manager around each fenced request, which the handler's own transactions join.
 */
final class HandlerTransactions {

    private static final String PROPERTY = FenceguardHttpProperties.PREFIX + ".store.join-handler-transaction";

    private HandlerTransactions() {
    }

    static AdmissionTransaction around(HighWaterStore store, BeanFactory beans) {
        if (!store.joinsTransactions()) {
            throw new HttpFencingConfigurationException(PROPERTY + "=true needs the jdbc store of fenceguard, not "
                    + store + ".", "Set " + FenceguardHttpProperties.PREFIX + ".store.type=jdbc, or " + PROPERTY
                    + "=false.");
        }
        PlatformTransactionManager transactions = beans.getBeanProvider(PlatformTransactionManager.class).getIfUnique();
        if (transactions == null) {
            throw new HttpFencingConfigurationException(PROPERTY + "=true needs exactly one PlatformTransactionManager "
                    + "bean (on the DataSource of the jdbc store).", "Define one, or set " + PROPERTY + "=false.");
        }
        TransactionTemplate template = new TransactionTemplate(transactions);
        return work -> {
            try {
                template.executeWithoutResult(status -> {
                    try {
                        if (!work.run()) {
                            status.setRollbackOnly();
                        }
                    } catch (RuntimeException e) {
                        throw e;
                    } catch (Exception e) {
                        throw new Checked(e);
                    }
                });
            } catch (Checked e) {
                throw (Exception) e.getCause();
            }
        };
    }

    /** Carries a checked exception of the request through the template. */
    private static final class Checked extends RuntimeException {
        Checked(Exception cause) {
            super(cause);
        }
    }
}
