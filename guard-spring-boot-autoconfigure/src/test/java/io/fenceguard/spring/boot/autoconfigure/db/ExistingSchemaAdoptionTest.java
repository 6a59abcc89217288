package io.fenceguard.spring.boot.autoconfigure.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.spring.boot.autoconfigure.jdbc.FencedWrites;
import io.fenceguard.spring.boot.autoconfigure.jdbc.FenceguardJdbcAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.jdbc.ScratchDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Fencing added to an existing schema, as "Fencing an existing schema" in the SQL fencing guide tells it: the
 * application's own Flyway creates a table and seeds it with column-less INSERTs (V1, V2), a migration of its own
 * adds the token column with a default (V3; last on PostgreSQL, INVISIBLE on H2 and MariaDB), and a later
 * column-less seed still runs (V4). Then the rows are fenced: a newer token writes, an older one is refused.
 * Beside it, what the INVISIBLE is for: a visible column breaks column-less INSERTs on H2 and MariaDB.
 */
class ExistingSchemaAdoptionTest {

    private ScratchDatabase db;

    @AfterEach
    void drop() {
        if (db != null) {
            db.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql", "mariadb"})
    void columnLessSeedsKeepWorkingAndStaleWritesAreRefusedAfterTheColumnIsAdded(String kind) throws Exception {
        db = ScratchDatabase.of(kind);
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
                        FlywayAutoConfiguration.class, FenceguardJdbcAutoConfiguration.class,
                        FenceguardDbAutoConfiguration.class))
                .withPropertyValues(db.datasourceProperties())
                .withPropertyValues("spring.flyway.locations=classpath:adopt/" + kind, "fenceguard.jdbc.tables=owners")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(owners()).containsExactly("1 George 0", "2 Betty 0", "3 Eduardo 0");

                    JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
                    TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
                    String rename = "UPDATE owners SET first_name = ? WHERE id = ?";
                    Integer newer = FencedWrites.as(10, () -> tx.execute(status -> jdbc.update(rename, "Georgina", 1)));
                    assertThat(newer).isEqualTo(1);
                    assertThatThrownBy(() -> FencedWrites.as(9, () -> tx.execute(status -> jdbc.update(rename, "Stale", 1))))
                            .isInstanceOf(ConcurrencyFailureException.class);
                    Integer otherRow = FencedWrites.as(9, () -> tx.execute(status -> jdbc.update(rename, "Bettina", 2)));
                    assertThat(otherRow).as("another row, never written under a lease").isEqualTo(1);
                    Integer inserted = FencedWrites.as(11, () -> tx.execute(status ->
                            jdbc.update("INSERT INTO owners (id, first_name) VALUES (?, ?)", 4, "Harold")));
                    assertThat(inserted).isEqualTo(1);
                    assertThat(owners()).containsExactly("1 Georgina 10", "2 Bettina 9", "3 Eduardo 0", "4 Harold 11");
                });
    }

    /** With the column visible, a column-less INSERT fails on H2 and MariaDB; PostgreSQL fills it with its default. */
    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql", "mariadb"})
    void aVisibleTokenColumnBreaksColumnLessInsertsExceptOnPostgresql(String kind) throws Exception {
        db = ScratchDatabase.of(kind);
        db.execute("CREATE TABLE owners (id INT PRIMARY KEY, first_name VARCHAR(30) NOT NULL)",
                "ALTER TABLE owners ADD COLUMN current_token BIGINT NOT NULL DEFAULT 0");
        if (kind.equals("postgresql")) {
            db.execute("INSERT INTO owners VALUES (1, 'George')");
            assertThat(owners()).containsExactly("1 George 0");
        } else {
            assertThatThrownBy(() -> db.execute("INSERT INTO owners VALUES (1, 'George')"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("olumn count");
            db.execute("INSERT INTO owners (id, first_name) VALUES (1, 'George')");
            assertThat(owners()).containsExactly("1 George 0");
        }
    }

    private List<String> owners() throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = db.physical().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, first_name, current_token FROM owners ORDER BY id")) {
            while (rs.next()) {
                rows.add(rs.getInt(1) + " " + rs.getString(2) + " " + rs.getLong(3));
            }
        }
        return rows;
    }
}
