package io.fenceguard.spring.boot.autoconfigure.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.spring.boot.autoconfigure.jdbc.ScratchDatabase;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseSnapshot;
import io.fenceguard.core.annotation.Fenced;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * On PostgreSQL, through a fenced DataSource and Spring's {@link DataSourceTransactionManager}: whichever
 * way the lease and the transaction are nested ({@code @Fenced} DAO inside a {@code TransactionTemplate},
 * {@code TransactionTemplate} inside a {@code @Fenced} method, a programmatic lease around a
 * {@code TransactionTemplate}), the lease is still held when the commit (or rollback) reaches the database,
 * and released after it.
 */
class FencedTransactionPostgresTest {

    private static ScratchDatabase db;
    /** What each commit and rollback that reached PostgreSQL saw: the leases held then. */
    private static final List<String> reached = new CopyOnWriteArrayList<>();
    private static LeaseManager current;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
                    FenceguardLeaseAutoConfiguration.class, FenceguardFencedMethodAutoConfiguration.class))
            .withPropertyValues("fenceguard.lease.store=memory")
            .withUserConfiguration(Wiring.class);

    @BeforeAll
    static void database() throws Exception {
        db = ScratchDatabase.of("postgresql");
        FenceguardMigrations.migrate(db.physical());
        db.execute("CREATE TABLE accounts (id INT PRIMARY KEY, balance INT NOT NULL, current_token BIGINT)",
                "INSERT INTO accounts VALUES (1, 0, NULL)");
    }

    @AfterAll
    static void drop() {
        db.close();
    }

    @BeforeEach
    void clear() {
        reached.clear();
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class Wiring {

        @Bean
        DataSource dataSource() {
            return FencedDataSource.wrap(recording(db.physical()), FencingConfig.builder().fence("accounts").build());
        }

        @Bean
        DataSourceTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        TransactionTemplate transactionTemplate(DataSourceTransactionManager transactions) {
            return new TransactionTemplate(transactions);
        }

        @Bean
        Accounts accounts(DataSource dataSource, TransactionTemplate transactions) {
            return new Accounts(new JdbcTemplate(dataSource), transactions);
        }
    }

    public static class Accounts {

        private final JdbcTemplate jdbc;
        private final TransactionTemplate transactions;

        public Accounts(JdbcTemplate jdbc, TransactionTemplate transactions) {
            this.jdbc = jdbc;
            this.transactions = transactions;
        }

        @Fenced("'account:' + #id")
        public void deposit(int id, int amount) {
            jdbc.update("UPDATE accounts SET balance = balance + ? WHERE id = ?", amount, id);
        }

        @Fenced("'account:' + #id")
        public void depositInOwnTransaction(int id, int amount) {
            transactions.executeWithoutResult(status -> deposit(id, amount));
        }
    }

    @Test
    void aFencedDaoInsideATransactionTemplateKeepsTheLeaseUntilTheCommitHasReachedTheDatabase() {
        runner.run(context -> {
            current = context.getBean(LeaseManager.class);
            Accounts accounts = context.getBean(Accounts.class);
            TransactionTemplate transactions = context.getBean(TransactionTemplate.class);
            transactions.executeWithoutResult(status -> {
                accounts.deposit(1, 5);
                assertThat(held()).as("after the DAO returned, before the commit").isEqualTo("account:1");
            });
            assertThat(reached).containsExactly("commit under account:1");
            assertThat(held()).as("released after the commit").isEmpty();
        });
    }

    @Test
    void aRollbackAlsoReachesTheDatabaseUnderTheLease() {
        runner.run(context -> {
            current = context.getBean(LeaseManager.class);
            Accounts accounts = context.getBean(Accounts.class);
            TransactionTemplate transactions = context.getBean(TransactionTemplate.class);
            assertThatThrownBy(() -> transactions.executeWithoutResult(status -> {
                accounts.deposit(1, 5);
                throw new IllegalStateException("refused later in the transaction");
            })).hasMessage("refused later in the transaction");
            assertThat(reached).containsExactly("rollback under account:1");
            assertThat(held()).isEmpty();
        });
    }

    @Test
    void aTransactionTemplateInsideAFencedMethodCommitsUnderTheLease() {
        runner.run(context -> {
            current = context.getBean(LeaseManager.class);
            context.getBean(Accounts.class).depositInOwnTransaction(1, 5);
            assertThat(reached).containsExactly("commit under account:1");
            assertThat(held()).isEmpty();
        });
    }

    @Test
    void aProgrammaticLeaseAroundATransactionTemplateCommitsUnderTheLease() {
        runner.run(context -> {
            current = context.getBean(LeaseManager.class);
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
            TransactionTemplate transactions = context.getBean(TransactionTemplate.class);
            current.callWithLease("account:1", Duration.ofSeconds(5), lease -> {
                transactions.executeWithoutResult(status ->
                        jdbc.update("UPDATE accounts SET balance = balance + 1 WHERE id = ?", 1));
                return null;
            });
            assertThat(reached).containsExactly("commit under account:1");
            assertThat(held()).isEmpty();
        });
    }

    private static String held() {
        return current.heldLeases().stream().filter(LeaseSnapshot::valid)
                .map(s -> s.fence().resource().value()).sorted().collect(Collectors.joining(","));
    }

    /** A DataSource whose connections note, when a commit or rollback is sent, which leases are held. */
    private static DataSource recording(DataSource target) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    Object result = invoke(target, method, args);
                    return result instanceof Connection connection ? recordingConnection(connection) : result;
                });
    }

    private static Connection recordingConnection(Connection target) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if ((method.getName().equals("commit") || method.getName().equals("rollback"))
                            && (args == null || args.length == 0) && current != null) {
                        reached.add(method.getName() + " under " + held());
                    }
                    return invoke(target, method, args);
                });
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
