package io.fenceguard.spring.boot.autoconfigure.dao;

import static io.fenceguard.spring.boot.autoconfigure.jdbc.FencedWrites.TABLE;
import static io.fenceguard.spring.boot.autoconfigure.jdbc.FencedWrites.as;
import static io.fenceguard.spring.boot.autoconfigure.jdbc.FencedWrites.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Fence;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.jdbc.FencingRefusedException.Reason;
import io.fenceguard.spring.boot.autoconfigure.jdbc.FenceguardJdbcAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.jdbc.FencedWrites;
import io.fenceguard.spring.boot.autoconfigure.jdbc.ScratchDatabase;
import io.fenceguard.spring.dao.FencingRefusedUsageException;
import io.fenceguard.spring.dao.StaleTokenFailureException;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.Table;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Update;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.mybatis.spring.annotation.MapperScan;
import org.mybatis.spring.boot.autoconfigure.MybatisAutoConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.jdbc.autoconfigure.DataJdbcRepositoriesAutoConfiguration;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcClientAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.jooq.autoconfigure.JooqAutoConfiguration;
import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.boot.persistence.autoconfigure.PersistenceExceptionTranslationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Repository;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.data.annotation.Id;
import org.springframework.data.jdbc.repository.config.EnableJdbcRepositories;
import org.springframework.data.repository.CrudRepository;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The exception type an application sees for a stale write and for a write without a lease, per data access
 * path, on PostgreSQL: always a {@link StaleTokenFailureException} (a {@link ConcurrencyFailureException}) and a
 * {@link FencingRefusedUsageException} (an {@link InvalidDataAccessApiUsageException}, reason NO_LEASE). The row
 * is first written by token 10; the stale write presents 9.
 */
class DataAccessExceptionTranslationTest {

    private static final String UPDATE = "UPDATE " + TABLE + " SET balance = ? WHERE id = 1";

    private ScratchDatabase db;

    private ApplicationContextRunner runner() {
        return withoutTranslation()
                .withConfiguration(AutoConfigurations.of(FenceguardExceptionTranslationAutoConfiguration.class));
    }

    /** A fenced application without fenceguard's translation: Spring's own. */
    private ApplicationContextRunner withoutTranslation() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                        JdbcTemplateAutoConfiguration.class, JdbcClientAutoConfiguration.class,
                        FenceguardJdbcAutoConfiguration.class))
                .withPropertyValues(db.datasourceProperties())
                .withPropertyValues("fenceguard.jdbc.tables=" + TABLE);
    }

    @BeforeEach
    void database() throws Exception {
        db = ScratchDatabase.of("postgresql");
        FenceguardMigrations.migrate(db.physical());
        FencedWrites.recreate(db);
    }

    @AfterEach
    void drop() {
        db.close();
    }

    @Test
    void jdbcTemplate() {
        runner().run(context -> {
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            assertPath(context, balance -> jdbc.update(UPDATE, balance));
        });
    }

    @Test
    void namedParameterJdbcTemplate() {
        runner().run(context -> {
            NamedParameterJdbcTemplate jdbc = context.getBean(NamedParameterJdbcTemplate.class);
            assertPath(context, balance -> jdbc.update("UPDATE " + TABLE + " SET balance = :balance WHERE id = 1",
                    Map.of("balance", balance)));
        });
    }

    @Test
    void jdbcClient() {
        runner().run(context -> {
            JdbcClient jdbc = context.getBean(JdbcClient.class);
            assertPath(context, balance -> jdbc.sql(UPDATE).param(balance).update());
        });
    }

    @Test
    void springDataJdbc() {
        runner().withConfiguration(AutoConfigurations.of(DataJdbcRepositoriesAutoConfiguration.class))
                .withUserConfiguration(JdbcRepositories.class).run(context -> {
                    JdbcAccounts accounts = context.getBean(JdbcAccounts.class);
                    assertPath(context, balance -> accounts.save(new JdbcAccount(1, balance)).id());
                });
    }

    @Test
    void jooq() {
        runner().withConfiguration(AutoConfigurations.of(JooqAutoConfiguration.class))
                .withPropertyValues("spring.jooq.sql-dialect=postgres").run(context -> {
                    DSLContext dsl = context.getBean(DSLContext.class);
                    assertPath(context, balance -> dsl.update(DSL.table(TABLE)).set(DSL.field("balance"), balance)
                            .where(DSL.field("id").eq(1)).execute());
                });
    }

    @Test
    void myBatis() {
        runner().withConfiguration(AutoConfigurations.of(MybatisAutoConfiguration.class))
                .withUserConfiguration(MyBatisMappers.class).run(context -> {
                    MyBatisAccounts accounts = context.getBean(MyBatisAccounts.class);
                    assertPath(context, accounts::setBalance);
                });
    }

    /** A changed entity, flushed by the transaction manager at commit. */
    @Test
    void jpaDirtyCheckingFlushAtCommit() {
        jpa().run(context -> {
            JpaAccounts accounts = context.getBean(JpaAccounts.class);
            assertPath(context, balance -> accounts.change(1, balance));
        });
    }

    /** saveAndFlush's way: merge and flush in a repository, translated by the repository's translation. */
    @Test
    void jpaMergeAndFlush() {
        jpa().run(context -> {
            JpaAccounts accounts = context.getBean(JpaAccounts.class);
            assertPath(context, balance -> accounts.mergeAndFlush(new JpaAccount(1, balance)));
        });
    }

    /** A new entity, inserted at commit: without a lease refused; with one stamped. */
    @Test
    void jpaPersistWithoutALease() {
        jpa().run(context -> {
            JpaAccounts accounts = context.getBean(JpaAccounts.class);
            TransactionTemplate tx = context.getBean(TransactionTemplate.class);
            assertNoLease(() -> tx.execute(status -> accounts.persist(new JpaAccount(2, 5))));
            Integer inserted = as(10, () -> tx.execute(status -> accounts.persist(new JpaAccount(2, 5))));
            assertThat(inserted).isEqualTo(1);
        });
    }

    /**
     * Without fenceguard's translator (plain Spring, a template that is no bean), Spring's own translation still
     * reports a stale write as a concurrency failure: StaleTokenException is a SQLTransactionRollbackException.
     */
    @Test
    void plainSpringTranslationReportsAStaleWriteAsAConcurrencyFailure() {
        withoutTranslation().run(context -> {
            JdbcTemplate plain = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
            TransactionTemplate tx = context.getBean(TransactionTemplate.class);
            as(10, () -> tx.execute(status -> plain.update(UPDATE, 110)));
            assertThatThrownBy(() -> as(9, () -> tx.execute(status -> plain.update(UPDATE, 666))))
                    .isInstanceOf(PessimisticLockingFailureException.class)
                    .isNotInstanceOf(StaleTokenFailureException.class);
            assertThatThrownBy(() -> tx.execute(status -> plain.update(UPDATE, 777)))
                    .isExactlyInstanceOf(InvalidDataAccessApiUsageException.class);
        });
    }

    /** Hibernate without fenceguard's translator: the stale write is a concurrency failure all the same. */
    @Test
    void plainHibernateTranslationReportsAStaleWriteAsAConcurrencyFailure() {
        jpa(withoutTranslation()).run(context -> {
            JpaAccounts accounts = context.getBean(JpaAccounts.class);
            TransactionTemplate tx = context.getBean(TransactionTemplate.class);
            as(10, () -> tx.execute(status -> accounts.change(1, 110)));
            assertThatThrownBy(() -> as(9, () -> tx.execute(status -> accounts.mergeAndFlush(new JpaAccount(1, 666)))))
                    .isInstanceOf(ConcurrencyFailureException.class)
                    .isNotInstanceOf(StaleTokenFailureException.class);
        });
    }

    /** The usual Spring idiom: a retry on ConcurrencyFailureException runs the work again, with a newer lease. */
    @Test
    void aRetryOnConcurrencyFailureFiresAndThenSucceeds() {
        runner().run(context -> {
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            TransactionTemplate tx = context.getBean(TransactionTemplate.class);
            as(10, () -> tx.execute(status -> jdbc.update(UPDATE, 110)));
            long[] tokens = {9, 11};        // a paused holder's lease first, then a lease taken anew
            AtomicInteger attempts = new AtomicInteger();
            RetryTemplate retry = new RetryTemplate(RetryPolicy.builder().includes(ConcurrencyFailureException.class)
                    .maxRetries(2).delay(Duration.ofMillis(10)).build());
            Integer updated = retry.execute(() -> as(tokens[attempts.getAndIncrement()],
                    () -> tx.execute(status -> jdbc.update(UPDATE, 120))));
            assertThat(updated).isEqualTo(1);
            assertThat(attempts).hasValue(2);
            assertThat(row(db)).isEqualTo("120@11");
        });
    }

    private ApplicationContextRunner jpa() {
        return jpa(runner());
    }

    private static ApplicationContextRunner jpa(ApplicationContextRunner runner) {
        return runner.withConfiguration(AutoConfigurations.of(HibernateJpaAutoConfiguration.class,
                        PersistenceExceptionTranslationAutoConfiguration.class))
                .withUserConfiguration(JpaEntities.class)
                .withPropertyValues("spring.jpa.hibernate.ddl-auto=none", "spring.jpa.open-in-view=false");
    }

    /** Row 1 written by token 10, then: token 9 stale, no lease refused; the row keeps token 10's write. */
    private void assertPath(ApplicationContext context, Write write) throws Exception {
        TransactionTemplate tx = context.getBean(TransactionTemplate.class);
        Object written = as(10, () -> tx.execute(status -> write.write(110)));
        assertThat(written).isEqualTo(1);
        assertThat(row(db)).isEqualTo("110@10");
        assertThatThrownBy(() -> as(9, () -> tx.execute(status -> write.write(666))))
                .isInstanceOfSatisfying(StaleTokenFailureException.class,
                        e -> assertThat(e.fence()).contains(Fence.of("account:1", "9")))
                .isInstanceOf(ConcurrencyFailureException.class)
                .hasMessageContaining("stale fencing token 9");
        assertNoLease(() -> tx.execute(status -> write.write(777)));
        assertThat(row(db)).isEqualTo("110@10");
    }

    private static void assertNoLease(ThrowingCallable write) {
        assertThatThrownBy(write)
                .isInstanceOfSatisfying(FencingRefusedUsageException.class,
                        e -> assertThat(e.reason()).contains(Reason.NO_LEASE))
                .isInstanceOf(InvalidDataAccessApiUsageException.class)
                .hasMessageContaining("NO_LEASE");
    }

    @FunctionalInterface
    interface Write {
        Object write(long balance);
    }

    @org.springframework.data.relational.core.mapping.Table(TABLE)
    record JdbcAccount(@Id int id, long balance) {
    }

    interface JdbcAccounts extends CrudRepository<JdbcAccount, Integer> {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableJdbcRepositories(basePackageClasses = JdbcAccounts.class, considerNestedRepositories = true,
            includeFilters = @org.springframework.context.annotation.ComponentScan.Filter(
                    type = org.springframework.context.annotation.FilterType.ASSIGNABLE_TYPE, classes = JdbcAccounts.class))
    static class JdbcRepositories {
    }

    @Mapper
    interface MyBatisAccounts {
        @Update("UPDATE " + TABLE + " SET balance = #{balance} WHERE id = 1")
        int setBalance(long balance);
    }

    @Configuration(proxyBeanMethods = false)
    @MapperScan(basePackageClasses = MyBatisAccounts.class, annotationClass = Mapper.class)
    static class MyBatisMappers {
    }

    @jakarta.persistence.Entity
    @Table(name = TABLE)
    static class JpaAccount {
        @jakarta.persistence.Id
        int id;
        long balance;

        JpaAccount() {
        }

        JpaAccount(int id, long balance) {
            this.id = id;
            this.balance = balance;
        }
    }

    @Repository
    static class JpaAccounts {
        @PersistenceContext
        EntityManager entities;

        int change(int id, long balance) {
            entities.find(JpaAccount.class, id).balance = balance;
            return 1;
        }

        int mergeAndFlush(JpaAccount account) {
            entities.merge(account);
            entities.flush();
            return 1;
        }

        int persist(JpaAccount account) {
            entities.persist(account);
            return 1;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EntityScan(basePackageClasses = JpaAccount.class)
    @Import(JpaAccounts.class)
    static class JpaEntities {
    }
}
