package io.fenceguard.jdbc;

import static io.fenceguard.jdbc.TestFence.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.annotation.Id;
import org.springframework.data.annotation.ReadOnlyProperty;
import org.springframework.data.jdbc.repository.config.AbstractJdbcConfiguration;
import org.springframework.data.jdbc.repository.config.EnableJdbcRepositories;
import org.springframework.data.jdbc.repository.query.Modifying;
import org.springframework.data.jdbc.repository.query.Query;
import org.springframework.data.relational.core.mapping.Table;
import org.springframework.data.repository.CrudRepository;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcOperations;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Spring Data JDBC repositories over a {@link FencedDataSource} on PostgreSQL. The aggregate maps the
 * token column read-only: Spring Data never writes it, the guard stamps it, and the application can
 * still read which holder wrote a row. Mapping it writable makes every save a refused statement.
 */
class SpringDataJdbcTest {

    static final String TABLE = "fg_sdj_account";
    private static final String RESOURCE = "jobs:spring-data";

    private DataSource raw;
    private AnnotationConfigApplicationContext context;
    private AccountRepository accounts;
    private WritableTokenRepository writable;

    @BeforeEach
    void start() throws SQLException {
        raw = TestDatabases.of(SqlDialect.POSTGRESQL);
        TestDatabases.execute(raw, "DROP TABLE IF EXISTS " + TABLE,
                "CREATE TABLE " + TABLE + " (id SERIAL PRIMARY KEY, owner VARCHAR(50) NOT NULL,"
                        + " balance INT NOT NULL, current_token BIGINT)");
        FencedDataSource fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence(TABLE).build());
        context = new AnnotationConfigApplicationContext();
        context.registerBean("dataSource", DataSource.class, () -> fenced);
        context.register(RepositoryConfig.class);
        context.refresh();
        accounts = context.getBean(AccountRepository.class);
        writable = context.getBean(WritableTokenRepository.class);
    }

    @AfterEach
    void stop() {
        if (context != null) {
            context.close();
        }
    }

    @Test
    void savesUnderALeaseAreStampedAndAStaleUpdateIsAConcurrencyFailure() throws Exception {
        Account ann = as(RESOURCE, 10, () -> accounts.save(new Account("ann", 100)));
        Account bob = as(RESOURCE, 10, () -> accounts.save(new Account("bob", 200)));
        assertThat(ann.id).isNotNull();
        assertThat(rows()).containsExactly(ann.id + ":ann:100:10", bob.id + ":bob:200:10");
        assertThat(accounts.findById(ann.id)).get().extracting(a -> a.currentToken).isEqualTo(10L);

        // a newer holder updates ann; the guard stamps 11 although the aggregate still says 10
        ann.balance = 150;
        as(RESOURCE, 11, () -> accounts.save(ann));
        assertThat(rows()).containsExactly(ann.id + ":ann:150:11", bob.id + ":bob:200:10");

        Account staleCopy = accounts.findById(ann.id).orElseThrow();
        staleCopy.balance = 1;
        assertThatThrownBy(() -> as(RESOURCE, 10, () -> accounts.save(staleCopy)))
                .isInstanceOf(ConcurrencyFailureException.class)
                .satisfies(e -> assertThat(causes(e)).anyMatch(StaleTokenException.class::isInstance));
        bob.balance = 999;
        assertThatThrownBy(() -> as(RESOURCE, 10, () -> accounts.saveAll(List.of(bob, staleCopy))))
                .isInstanceOf(ConcurrencyFailureException.class);
        assertThatThrownBy(() -> as(RESOURCE, 10, () -> {
            accounts.deleteById(ann.id);
            return null;
        })).isInstanceOf(ConcurrencyFailureException.class);
        // saveAll runs in one transaction: bob's admitted update was rolled back with the stale one
        assertThat(rows()).containsExactly(ann.id + ":ann:150:11", bob.id + ":bob:200:10");

        // the current holder goes on; the old one may still write rows the newer holder has not touched
        bob.balance = 250;
        as(RESOURCE, 10, () -> accounts.save(bob));
        as(RESOURCE, 11, () -> {
            accounts.deleteById(ann.id);
            return null;
        });
        assertThat(rows()).containsExactly(bob.id + ":bob:250:10");
    }

    @Test
    void modifyingQueriesAreFencedToo() throws Exception {
        Account ann = as(RESOURCE, 5, () -> accounts.save(new Account("ann", 100)));
        Account ann2 = as(RESOURCE, 7, () -> accounts.save(new Account("ann", 10)));
        Account bob = as(RESOURCE, 5, () -> accounts.save(new Account("bob", 200)));
        assertThatThrownBy(() -> as(RESOURCE, 6, () -> accounts.credit("ann", 1)))
                .isInstanceOf(ConcurrencyFailureException.class);
        assertThat(as(RESOURCE, 7, () -> accounts.credit("ann", 1))).isEqualTo(2);
        assertThat(as(RESOURCE, 6, () -> accounts.credit("bob", 1))).isEqualTo(1);
        assertThat(rows()).containsExactly(ann.id + ":ann:101:7", ann2.id + ":ann:11:7", bob.id + ":bob:201:6");
    }

    @Test
    void withoutALeaseEveryWriteIsRefusedAndReadsWork() throws Exception {
        Account ann = as(RESOURCE, 3, () -> accounts.save(new Account("ann", 100)));
        assertThatThrownBy(() -> accounts.save(new Account("eve", 1)))
                .isInstanceOf(InvalidDataAccessApiUsageException.class)
                .hasMessageContaining("NO_LEASE")
                .cause().isInstanceOfSatisfying(FencingRefusedException.class,
                        e -> assertThat(e.reason()).isEqualTo(FencingRefusedException.Reason.NO_LEASE));
        ann.balance = 0;
        assertThatThrownBy(() -> accounts.save(ann)).isInstanceOf(InvalidDataAccessApiUsageException.class);
        assertThatThrownBy(() -> accounts.deleteById(ann.id)).isInstanceOf(InvalidDataAccessApiUsageException.class);
        assertThatThrownBy(() -> accounts.deleteAll()).isInstanceOf(InvalidDataAccessApiUsageException.class);
        assertThatThrownBy(() -> accounts.credit("ann", 5)).isInstanceOf(InvalidDataAccessApiUsageException.class);
        assertThat(accounts.count()).isEqualTo(1);
        assertThat(accounts.findAll()).singleElement().satisfies(a -> {
            assertThat(a.balance).isEqualTo(100);
            assertThat(a.currentToken).isEqualTo(3L);
        });
        assertThat(rows()).containsExactly(ann.id + ":ann:100:3");
    }

    @Test
    void anAggregateThatWritesTheTokenColumnIsStampedOnInsertAndRefusedOnUpdate() throws Exception {
        // inserting, the value the aggregate gives the token column is replaced by the lease's token;
        // a value above it (a newer holder's) is refused as stale, and nothing is inserted
        WritableTokenAccount forged = new WritableTokenAccount();
        forged.owner = "mallory";
        forged.balance = 1;
        forged.currentToken = Long.MAX_VALUE;
        assertThatThrownBy(() -> as(RESOURCE, 10, () -> writable.save(forged)))
                .isInstanceOf(ConcurrencyFailureException.class)
                .hasMessageContaining("stale fencing token");
        WritableTokenAccount initial = new WritableTokenAccount();
        initial.owner = "bob";
        initial.balance = 7;
        WritableTokenAccount bob = as(RESOURCE, 9, () -> writable.save(initial));
        assertThat(writable.findById(bob.id).orElseThrow().currentToken).isEqualTo(9L);
        Account ann = as(RESOURCE, 10, () -> accounts.save(new Account("ann", 100)));
        WritableTokenAccount loaded = writable.findById(ann.id).orElseThrow();
        assertThat(loaded.currentToken).isEqualTo(10L);
        loaded.balance = 0;
        assertThatThrownBy(() -> as(RESOURCE, 10, () -> writable.save(loaded)))
                .isInstanceOf(InvalidDataAccessApiUsageException.class);
        assertThat(rows()).containsExactly(bob.id + ":bob:7:9", ann.id + ":ann:100:10");
    }

    private List<String> rows() {
        return new JdbcTemplate(raw).queryForList("SELECT id || ':' || owner || ':' || balance || ':'"
                + " || coalesce(current_token::text, 'null') FROM " + TABLE + " ORDER BY id", String.class);
    }

    private static List<Throwable> causes(Throwable e) {
        List<Throwable> all = new java.util.ArrayList<>();
        for (Throwable t = e; t != null && all.size() < 20; t = t.getCause()) {
            all.add(t);
        }
        return all;
    }

    @Configuration
    @EnableJdbcRepositories(considerNestedRepositories = true, basePackageClasses = SpringDataJdbcTest.class,
            includeFilters = @org.springframework.context.annotation.ComponentScan.Filter(
                    type = org.springframework.context.annotation.FilterType.ASSIGNABLE_TYPE,
                    classes = {AccountRepository.class, WritableTokenRepository.class}))
    static class RepositoryConfig extends AbstractJdbcConfiguration {

        @Bean
        NamedParameterJdbcOperations namedParameterJdbcOperations(DataSource dataSource) {
            return new NamedParameterJdbcTemplate(dataSource);
        }

        @Bean
        PlatformTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }
    }

    interface AccountRepository extends CrudRepository<Account, Long> {

        @Modifying
        @Query("UPDATE " + TABLE + " SET balance = balance + :delta WHERE owner = :owner")
        int credit(String owner, int delta);
    }

    interface WritableTokenRepository extends CrudRepository<WritableTokenAccount, Long> {
    }

    @Table(TABLE)
    static class Account {
        @Id
        Long id;
        String owner;
        int balance;
        /** Written by the guard only; read to see which holder wrote the row. */
        @ReadOnlyProperty
        Long currentToken;

        Account() {
        }

        Account(String owner, int balance) {
            this.owner = owner;
            this.balance = balance;
        }
    }

    /** The mapping not to use: Spring Data would write the token column itself. */
    @Table(TABLE)
    static class WritableTokenAccount {
        @Id
        Long id;
        String owner;
        int balance;
        Long currentToken;
    }
}
