package io.fenceguard.jdbc;

import static io.fenceguard.jdbc.TestFence.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Fence;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.AvailableSettings;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.SQLErrorCodeSQLExceptionTranslator;
import org.springframework.jdbc.support.SQLExceptionSubclassTranslator;
import org.springframework.jdbc.support.SQLStateSQLExceptionTranslator;
import org.junit.jupiter.api.Test;

/** JdbcTemplate, JdbcClient and Hibernate on a fenced DataSource, and Spring's exception translation. */
class SpringClientsTest {

    private static final String TABLE = "fg_acc_spring";
    private DataSource raw;
    private FencedDataSource fenced;

    @BeforeEach
    void createTable() throws SQLException {
        raw = TestDatabases.of(SqlDialect.POSTGRESQL);
        TestDatabases.execute(raw, "DROP TABLE IF EXISTS " + TABLE,
                "CREATE TABLE " + TABLE + " (id INT PRIMARY KEY, balance INT NOT NULL, current_token BIGINT)",
                "INSERT INTO " + TABLE + " VALUES (1, 100, NULL), (2, 200, NULL)");
        fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence(TABLE).build());
    }

    @ParameterizedTest
    @EnumSource(value = SqlDialect.class)
    void everySpringTranslatorMakesAStaleTokenAConcurrencyFailure(SqlDialect dialect) {
        StaleTokenException stale = new StaleTokenException(Fence.of("r", "3"), TABLE, "UPDATE x", null);
        DataSource database = TestDatabases.of(dialect);
        assertThat(new SQLErrorCodeSQLExceptionTranslator(database).translate("update", "UPDATE x", stale))
                .isInstanceOf(ConcurrencyFailureException.class);
        assertThat(new SQLStateSQLExceptionTranslator().translate("update", "UPDATE x", stale))
                .isInstanceOf(ConcurrencyFailureException.class);
        assertThat(new SQLExceptionSubclassTranslator().translate("update", "UPDATE x", stale))
                .isInstanceOf(ConcurrencyFailureException.class);
    }

    @Test
    void jdbcTemplateAndJdbcClient() throws Exception {
        JdbcTemplate template = new JdbcTemplate(fenced);
        JdbcClient client = JdbcClient.create(fenced);
        assertThat(as("r", 10, () -> template.update("UPDATE " + TABLE + " SET balance = ? WHERE id = ?", 110, 1)))
                .isEqualTo(1);
        assertThatThrownBy(() -> as("r", 9, () -> template.update("UPDATE " + TABLE + " SET balance = ? WHERE id = ?",
                99, 1)))
                .isInstanceOf(ConcurrencyFailureException.class)
                .hasRootCauseInstanceOf(java.sql.SQLException.class)
                .cause().isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> as("r", 9, () -> client.sql("DELETE FROM " + TABLE + " WHERE id = :id")
                .param("id", 1).update()))
                .isInstanceOf(ConcurrencyFailureException.class);
        assertThat(as("r", 9, () -> client.sql("UPDATE " + TABLE + " SET balance = :b WHERE id = :id")
                .param("b", 201).param("id", 2).update())).isEqualTo(1);
        assertThatThrownBy(() -> template.update("UPDATE " + TABLE + " SET balance = 0"))
                .isInstanceOf(InvalidDataAccessApiUsageException.class)
                .hasMessageContaining("NO_LEASE");
        assertThat(template.queryForList("SELECT balance || ':' || current_token FROM " + TABLE + " ORDER BY id",
                String.class)).containsExactly("110:10", "201:9");
    }

    @Test
    void hibernate() throws Exception {
        Configuration configuration = new Configuration().addAnnotatedClass(Account.class);
        configuration.getProperties().put(AvailableSettings.DATASOURCE, fenced);
        try (SessionFactory sessions = configuration.buildSessionFactory()) {
            as("r", 10, () -> {
                sessions.inTransaction(session -> session.find(Account.class, 1).balance = 150);
                return null;
            });
            assertThatThrownBy(() -> as("r", 9, () -> {
                sessions.inTransaction(session -> session.find(Account.class, 1).balance = 90);
                return null;
            })).hasRootCauseInstanceOf(SQLException.class)
                    .satisfies(e -> assertThat(causes(e)).anyMatch(StaleTokenException.class::isInstance));
            as("r", 9, () -> {
                sessions.inTransaction(session -> session.persist(new Account(3, 300)));
                return null;
            });
            try (Session session = sessions.openSession()) {
                assertThat(session.find(Account.class, 1).balance).isEqualTo(150);
                assertThat(session.find(Account.class, 3).balance).isEqualTo(300);
            }
        }
        assertThat(new JdbcTemplate(raw).queryForList("SELECT current_token FROM " + TABLE + " ORDER BY id",
                Long.class)).containsExactly(10L, null, 9L);
    }

    private static java.util.List<Throwable> causes(Throwable e) {
        java.util.List<Throwable> all = new java.util.ArrayList<>();
        for (Throwable t = e; t != null && !all.contains(t); t = t.getCause()) {
            all.add(t);
        }
        return all;
    }

    @Entity
    @Table(name = TABLE)
    static class Account {
        @Id
        Integer id;
        Integer balance;

        Account() {
        }

        Account(int id, int balance) {
            this.id = id;
            this.balance = balance;
        }
    }
}
