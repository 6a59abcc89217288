package io.fenceguard.spring.method;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.annotation.Fenced;
import io.fenceguard.core.memory.InMemoryLeaseProvider;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code @Fenced} in a plain Spring context (no Spring Boot): {@link EnableFencedMethods} and a
 * {@link LeaseManager} bean on the in-memory lease provider are all it takes.
 */
class FencedMethodsPlainSpringTest {

    @Configuration(proxyBeanMethods = false)
    @EnableFencedMethods
    static class App {

        @Bean(destroyMethod = "close")
        LeaseManager leaseManager() {
            return LeaseManager.of(InMemoryLeaseProvider.create(), LeaseConfig.builder()
                    .leaseTime(Duration.ofSeconds(5)).defaultWait(Duration.ofSeconds(5)).build());
        }

        @Bean
        AccountDao accountDao() {
            return new AccountDao();
        }

        @Bean
        TransactionTemplate transactions() {
            JdbcDataSource h2 = new JdbcDataSource();
            h2.setURL("jdbc:h2:mem:fenced-plain;DB_CLOSE_DELAY=-1");
            DataSource dataSource = h2;
            return new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        }
    }

    /**
     * A DAO as users write it; {@code held} blocks inside its lease until told to leave. The latches are reached
     * through methods: the bean is a subclass proxy, whose own fields are not the target's.
     */
    public static class AccountDao {

        private final CountDownLatch entered = new CountDownLatch(1);
        private final CountDownLatch leave = new CountDownLatch(1);

        public boolean awaitEntered() throws InterruptedException {
            return entered.await(5, TimeUnit.SECONDS);
        }

        public void letLeave() {
            leave.countDown();
        }

        @Fenced("'account:' + #id")
        public Lease update(long id) {
            return LeaseContext.requireValid();
        }

        @Fenced(value = "'account:' + #id", waitFor = "50ms")
        public Lease updateQuickly(long id) {
            return LeaseContext.requireValid();
        }

        @Fenced(value = "'account:' + #id", waitFor = "PT0.05S")
        public Lease updateQuicklyIso(long id) {
            return LeaseContext.requireValid();
        }

        @Fenced(value = "'account:' + #id", waitFor = "soon")
        public void badWait(long id) {
        }

        @Fenced("'account:' + #id")
        public Lease held(long id) throws InterruptedException {
            entered.countDown();
            if (!leave.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never told to leave");
            }
            return LeaseContext.requireValid();
        }
    }

    private AnnotationConfigApplicationContext context;
    private AccountDao dao;

    @BeforeEach
    void start() {
        context = new AnnotationConfigApplicationContext(App.class);
        dao = context.getBean(AccountDao.class);
    }

    @AfterEach
    void stop() {
        context.close();
    }

    @Test
    void runsTheMethodUnderABoundLeaseOnTheResourceItNames() {
        assertThat(LeaseContext.current()).isEmpty();
        Lease seen = dao.update(42);
        assertThat(seen.resource().value()).isEqualTo("account:42");
        assertThat(seen.token().value()).isPositive();
        assertThat(seen.isValid()).as("released after the call").isFalse();
        assertThat(LeaseContext.current()).as("unbound after the call").isEmpty();
        assertThat(dao.update(42).token()).isGreaterThan(seen.token());
    }

    @Test
    void aSecondCallerIsRefusedAfterTheWaitTheAnnotationNames() throws Exception {
        CompletableFuture<Lease> first = CompletableFuture.supplyAsync(() -> call(() -> dao.held(7)));
        assertThat(dao.awaitEntered()).isTrue();
        try {
            for (Runnable quick : new Runnable[] {() -> dao.updateQuickly(7), () -> dao.updateQuicklyIso(7)}) {
                long started = System.nanoTime();
                assertThatThrownBy(quick::run).isInstanceOf(LeaseTimeoutException.class).hasMessageContaining("account:7");
                assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(50))
                        .isLessThan(Duration.ofSeconds(4));
            }
        } finally {
            dao.letLeave();
        }
        assertThat(first.get(5, TimeUnit.SECONDS).resource().value()).isEqualTo("account:7");
    }

    @Test
    void aSecondCallerWithTheDefaultWaitGetsTheLeaseOnceTheFirstHasReleasedIt() throws Exception {
        CompletableFuture<Lease> first = CompletableFuture.supplyAsync(() -> call(() -> dao.held(8)));
        assertThat(dao.awaitEntered()).isTrue();
        CompletableFuture<Lease> second = CompletableFuture.supplyAsync(() -> dao.update(8));
        Thread.sleep(200);
        assertThat(second).as("waits while the first holds the lease").isNotDone();
        dao.letLeave();
        Lease firstLease = first.get(5, TimeUnit.SECONDS);
        Lease secondLease = second.get(5, TimeUnit.SECONDS);
        assertThat(secondLease.token()).isGreaterThan(firstLease.token());
    }

    @Test
    void insideATransactionTheLeaseIsReleasedAfterTheCommit() {
        TransactionTemplate transactions = context.getBean(TransactionTemplate.class);
        AtomicReference<Lease> seen = new AtomicReference<>();
        transactions.executeWithoutResult(status -> {
            seen.set(dao.update(9));
            assertThat(seen.get().isValid()).as("held until the transaction completes").isTrue();
            assertThatThrownBy(() -> CompletableFuture.supplyAsync(() -> dao.updateQuickly(9)).get())
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(LeaseTimeoutException.class);
        });
        assertThat(seen.get().isValid()).as("released after the commit").isFalse();
        assertThat(dao.updateQuickly(9).token()).isGreaterThan(seen.get().token());
    }

    @Test
    void aWaitThatIsNoDurationFailsClearly() {
        assertThatThrownBy(() -> dao.badWait(1)).isInstanceOf(FenceguardException.class)
                .hasMessageContaining("'soon'").hasMessageContaining("500ms");
    }

    private interface Call<T> {
        T run() throws Exception;
    }

    private static <T> T call(Call<T> call) {
        try {
            return call.run();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
