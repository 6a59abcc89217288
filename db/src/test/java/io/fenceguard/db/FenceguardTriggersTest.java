package io.fenceguard.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.db.FenceguardTriggers.FencedColumn;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Installing trigger mode's triggers on real PostgreSQL and MariaDB, each in a schema of its own: the
 * triggers hold with a token column of the table's own name, a second install replaces them, uninstall
 * removes them. What the triggers admit is tested with the guard in fenceguard-jdbc's TriggerModeTest.
 */
class FenceguardTriggersTest {

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void installIsIdempotentAndUninstallRemovesTheTriggers(String kind) throws Exception {
        try (ScratchSchema schema = ScratchSchema.on(kind)) {
            DataSource db = schema.dataSource();
            execute(db, "CREATE TABLE fg_tr (id INT PRIMARY KEY, v INT, fence BIGINT)", "INSERT INTO fg_tr VALUES (1, 1, 5)");
            List<FencedColumn> tables = List.of(new FencedColumn("fg_tr", "fence"));
            FenceguardTriggers.install(db, tables);
            FenceguardTriggers.install(db, tables);

            assertThatThrownBy(() -> execute(db, "UPDATE fg_tr SET v = 2"))
                    .isInstanceOfSatisfying(SQLException.class,
                            e -> assertThat(e.getSQLState()).isEqualTo(FenceguardTriggers.NO_TOKEN_STATE));
            // the named token column is the one checked: 5 is newer than 4
            assertThatThrownBy(() -> execute(db, kind.equals("postgresql")
                    ? "SELECT set_config('fenceguard.token', '4', false)" : "SET @fenceguard_token = 4",
                    "UPDATE fg_tr SET v = 2, fence = 4"))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("40F01"));

            FenceguardTriggers.uninstall(db, "fg_tr");
            execute(db, "UPDATE fg_tr SET v = 3");
        }
    }

    @Test
    void namesThatCouldCarrySqlAreRejected() {
        assertThatThrownBy(() -> new FencedColumn("t; DROP TABLE x", "current_token"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("t; DROP TABLE x");
        assertThatThrownBy(() -> new FencedColumn("t", "a.b")).isInstanceOf(IllegalArgumentException.class);
        assertThat(new FencedColumn(" billing.ledger ", "fence").table()).isEqualTo("billing.ledger");
    }

    private static void execute(DataSource db, String... statements) throws SQLException {
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }
}
