package io.fenceguard.spring.boot.autoconfigure.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.annotation.Fenced;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;

/**
 * {@code @Fenced} wraps {@code @Transactional}: the lease is taken before the transaction begins and
 * released after it has ended, so the commit runs under the lease too.
 */
class FencedTransactionTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
                    FenceguardLeaseAutoConfiguration.class, FenceguardFencedMethodAutoConfiguration.class))
            .withPropertyValues("fenceguard.lease.store=memory")
            .withUserConfiguration(Transactions.class);

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class Transactions {

        @Bean
        RecordingTransactionManager transactionManager() {
            return new RecordingTransactionManager();
        }

        @Bean
        Transfers transfers() {
            return new Transfers();
        }
    }

    /** Both annotations on one method, as in a service. */
    public static class Transfers {

        @Fenced("'account:' + #id")
        @Transactional
        public Lease transfer(long id) {
            return LeaseContext.requireValid();
        }

        @Transactional
        @Fenced("'account:' + #id")
        public void failingTransfer(long id) {
            throw new IllegalStateException("refused");
        }
    }

    /** Notes, at each step of a transaction, which lease the thread holds then. */
    static final class RecordingTransactionManager extends AbstractPlatformTransactionManager {

        final List<String> steps = new CopyOnWriteArrayList<>();

        private void note(String step) {
            steps.add(step + " " + LeaseContext.current().map(l -> l.resource() + "#" + l.token().value()
                    + (l.isValid() ? "" : " (released)")).orElse("without lease"));
        }

        @Override
        protected Object doGetTransaction() {
            return new Object();
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
            note("begin");
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
            note("commit");
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
            note("rollback");
        }
    }

    @Test
    void theLeaseIsHeldFromBeforeBeginUntilAfterCommit() {
        runner.run(context -> {
            RecordingTransactionManager transactions = context.getBean(RecordingTransactionManager.class);
            Lease lease = context.getBean(Transfers.class).transfer(5);
            String held = "account:5#" + lease.token().value();
            assertThat(transactions.steps).containsExactly("begin " + held, "commit " + held);
            assertThat(lease.isValid()).as("released once the transaction has ended").isFalse();
        });
    }

    @Test
    void aRollbackAlsoRunsUnderTheLeaseWhateverTheAnnotationOrder() {
        runner.run(context -> {
            RecordingTransactionManager transactions = context.getBean(RecordingTransactionManager.class);
            assertThatThrownBy(() -> context.getBean(Transfers.class).failingTransfer(6)).hasMessage("refused");
            assertThat(transactions.steps).hasSize(2);
            assertThat(transactions.steps.get(0)).startsWith("begin account:6#").doesNotContain("released");
            assertThat(transactions.steps.get(1)).startsWith("rollback account:6#").doesNotContain("released");
            assertThat(LeaseContext.current()).isEmpty();
        });
    }
}
