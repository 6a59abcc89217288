package io.fenceguard.jdbc;

import static io.fenceguard.jdbc.TestFence.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.jdbc.FencingRefusedException.Reason;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.ScratchSpace;
import io.fenceguard.test.support.TestServers;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mariadb.jdbc.MariaDbDataSource;

/**
 * MariaDB names and the catalog check: a backquoted name with spaces, case as
 * {@code lower_case_table_names} says, views (also over views) refused for writes, missing tables and
 * columns failing the first connection, and {@code fenceguard_stale} in another database than the
 * connection's default one (found database-qualified; without the check, a typed configuration error).
 */
class MariaDbNamesAndCatalogTest {

    private static final String RESOURCE = "jobs:names";

    private DataSource raw;

    @BeforeEach
    void setUp() throws Exception {
        raw = TestDatabases.of(SqlDialect.MARIADB);
        TestDatabases.execute(raw, "DROP VIEW IF EXISTS fg_nm_view_of_view, fg_nm_view",
                "DROP TABLE IF EXISTS `Fg Names Acc`, fg_nm_nocol, fg_nm_trig_src",
                "CREATE TABLE fg_nm_trig_src (id INT)",
                "CREATE TRIGGER fg_nm_trig AFTER INSERT ON fg_nm_trig_src FOR EACH ROW"
                        + " UPDATE `Fg Names Acc` SET balance = 0",
                "CREATE TABLE `Fg Names Acc` (id INT PRIMARY KEY, balance INT, current_token BIGINT)",
                "INSERT INTO `Fg Names Acc` (id, balance) VALUES (1, 100)",
                "CREATE VIEW fg_nm_view AS SELECT id, balance FROM `Fg Names Acc`",
                "CREATE VIEW fg_nm_view_of_view AS SELECT id, balance FROM fg_nm_view");
    }

    private static FencedDataSource fence(DataSource target, String table) {
        return FencedDataSource.wrap(target, FencingConfig.builder().fence(table).build());
    }

    private static int update(DataSource dataSource, String sql, Object... params) throws Exception {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            return ps.executeUpdate();
        }
    }

    private List<String> rows(DataSource dataSource, String table) throws Exception {
        List<String> rows = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, balance, current_token FROM " + table + " ORDER BY id")) {
            while (rs.next()) {
                rows.add(rs.getInt(1) + ":" + rs.getInt(2) + ":" + rs.getObject(3));
            }
        }
        return rows;
    }

    private boolean caseSensitive() throws Exception {
        try (Connection c = raw.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT @@lower_case_table_names")) {
            rs.next();
            return rs.getInt(1) == 0;
        }
    }

    @Test
    void aBackquotedNameWithSpacesIsFencedAndViewsOverItAreRefused() throws Exception {
        FencedDataSource fenced = fence(raw, "`Fg Names Acc`");
        assertThat(as(RESOURCE, 10, () -> update(fenced, "UPDATE `Fg Names Acc` SET balance = ? WHERE id = 1", 110)))
                .isEqualTo(1);
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update(fenced,
                "UPDATE `Fg Names Acc` SET balance = ? WHERE id = 1", 666))).isInstanceOf(StaleTokenException.class);
        if (!caseSensitive()) {
            // the server ignores case here, and so does the guard
            assertThatThrownBy(() -> as(RESOURCE, 9, () -> update(fenced,
                    "UPDATE `FG NAMES ACC` SET balance = ? WHERE id = 1", 666))).isInstanceOf(StaleTokenException.class);
        }
        for (String write : List.of("UPDATE fg_nm_view SET balance = ? WHERE id = 1",
                "UPDATE fg_nm_view_of_view SET balance = ? WHERE id = 1", "INSERT INTO fg_nm_trig_src (id) VALUES (?)")) {
            assertThatThrownBy(() -> as(RESOURCE, 11, () -> update(fenced, write, 5))).as(write)
                    .isInstanceOfSatisfying(FencingRefusedException.class, e -> {
                        assertThat(e.reason()).isEqualTo(Reason.UNSUPPORTED_FORM);
                        assertThat(e.getMessage()).containsAnyOf("view over fenced table", "trigger fg_nm_trig");
                    });
            assertThatThrownBy(() -> update(fenced, write, 5)).isInstanceOf(FencingRefusedException.class);
        }
        assertThat(rows(raw, "`Fg Names Acc`")).containsExactly("1:110:10");
    }

    @Test
    void aMisconfigurationFailsTheFirstConnectionWithOneLineNamingTheFix() throws Exception {
        TestDatabases.execute(raw, "CREATE TABLE fg_nm_nocol (id INT PRIMARY KEY)");
        assertConfigurationError(fence(raw, "fg_nm_missing"), "fg_nm_missing does not exist", "create it");
        assertConfigurationError(fence(raw, "fg_nm_nocol"), "has no token column current_token", "ADD COLUMN");
        assertConfigurationError(fence(raw, "fg_nm_view"), "is a view", "fence the table");
        if (caseSensitive()) {
            assertConfigurationError(fence(raw, "`fg names acc`"), "does not exist", "did you mean");
        }
    }

    private static void assertConfigurationError(FencedDataSource fenced, String... parts) throws Exception {
        try (Connection c = fenced.getConnection()) {
            assertThatThrownBy(() -> c.prepareStatement("UPDATE fg_nm_other SET x = ?"))
                    .isInstanceOf(FencingConfigurationException.class);
        }
        assertThatThrownBy(fenced::verify).isInstanceOfSatisfying(FencingConfigurationException.class, e -> {
            assertThat(e.getMessage()).contains(parts).doesNotContain("\n");
            assertThat(e.getSQLState()).isEqualTo(FencingConfigurationException.SQL_STATE);
        });
    }

    @Test
    void theStaleFunctionInAnotherDatabaseIsFoundQualifiedOrIsATypedError() throws Exception {
        JdbcEndpoint server = TestServers.mariadb();
        String home;
        try (Connection c = raw.getConnection()) {
            home = c.getCatalog();
        }
        TestDatabases.execute(raw, "DROP TABLE IF EXISTS fg_nm_home",
                "CREATE TABLE fg_nm_home (id INT PRIMARY KEY, balance INT, current_token BIGINT)",
                "INSERT INTO fg_nm_home (id, balance) VALUES (1, 100)");
        try (ScratchSpace other = ScratchSpace.create(server, "fg_nm_other")) {
            MariaDbDataSource elsewhere = new MariaDbDataSource(other.jdbcUrl());
            elsewhere.setUser(server.user());
            elsewhere.setPassword(server.password());
            String table = "`" + home + "`.fg_nm_home";
            String write = "UPDATE " + table + " SET balance = ? WHERE id = 1";

            FencedDataSource checked = fence(elsewhere, table);
            assertThat(as(RESOURCE, 10, () -> update(checked, write, 110))).isEqualTo(1);
            assertThatThrownBy(() -> as(RESOURCE, 9, () -> update(checked, write, 666)))
                    .isInstanceOf(StaleTokenException.class);
            assertThat(checked.explain(write)).contains("`" + home + "`.fenceguard_stale(");

            FencedDataSource unchecked = FencedDataSource.wrap(elsewhere,
                    FencingConfig.builder().fence(table).verifyCatalog(false).build());
            assertThatThrownBy(() -> as(RESOURCE, 9, () -> update(unchecked, write, 666)))
                    .isInstanceOfSatisfying(FencingConfigurationException.class,
                            e -> assertThat(e.getMessage()).contains("fenceguard_stale", "migrations"));
        }
        assertThat(rows(raw, "fg_nm_home")).containsExactly("1:110:10");
    }

    @Test
    void theStaleFunctionOfAnotherDatabaseOnlyIsRefused() throws Exception {
        JdbcEndpoint server = TestServers.mariadb();
        String home;
        try (Connection c = raw.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM information_schema.ROUTINES"
                     + " WHERE ROUTINE_NAME = 'fenceguard_stale' AND ROUTINE_SCHEMA = DATABASE()")) {
            home = c.getCatalog();
            rs.next();
            assertThat(rs.getInt(1)).as("fenceguard_stale in the test database " + home).isEqualTo(1);
        }
        try (ScratchSpace own = ScratchSpace.create(server, "fg_nm_own")) {
            MariaDbDataSource ownDatabase = new MariaDbDataSource(own.jdbcUrl());
            ownDatabase.setUser(server.user());
            ownDatabase.setPassword(server.password());
            TestDatabases.execute(ownDatabase,
                    "CREATE TABLE fg_nm_own_acc (id INT PRIMARY KEY, balance INT, current_token BIGINT)",
                    "INSERT INTO fg_nm_own_acc (id, balance) VALUES (1, 100)");
            // the function is on the server (in the test database), but not in this connection's own database
            assertConfigurationError(fence(ownDatabase, "fg_nm_own_acc"), "fenceguard_stale not found in",
                    own.name(), "migrations");
            assertThatThrownBy(() -> as(RESOURCE, 10, () -> update(fence(ownDatabase, "fg_nm_own_acc"),
                    "UPDATE fg_nm_own_acc SET balance = ? WHERE id = 1", 110)))
                    .isInstanceOf(FencingConfigurationException.class);
            assertThat(rows(ownDatabase, "fg_nm_own_acc")).containsExactly("1:100:null");
        }
    }
}
