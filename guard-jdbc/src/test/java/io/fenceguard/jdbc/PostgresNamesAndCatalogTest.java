package io.fenceguard.jdbc;

import static io.fenceguard.jdbc.TestFence.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.jdbc.FencingRefusedException.Reason;
import io.fenceguard.test.support.JdbcEndpoint;
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
import org.postgresql.ds.PGSimpleDataSource;

/**
 * PostgreSQL names as the server folds them, and the catalog check at the first connection: quoted
 * and mixed-case names, {@code U&"…"} identifiers, inheritance children and partitions (fenced with
 * their table), parents, views and rules (refused for writes), a rule on a fenced table and missing
 * tables or columns (startup fails), {@code fenceguard_stale} outside the search_path (found
 * schema-qualified; without the check, a typed configuration error).
 */
class PostgresNamesAndCatalogTest {

    private static final String RESOURCE = "jobs:names";

    private DataSource raw;

    @BeforeEach
    void setUp() throws Exception {
        raw = TestDatabases.of(SqlDialect.POSTGRESQL);
        TestDatabases.execute(raw, "DROP TABLE IF EXISTS \"Fg Names Acc\", fg_nm_fold, fg_nm_base, fg_nm_part,"
                        + " fg_nm_rule_src, fg_nm_ruled, fg_nm_nocol, fg_nm_trig_src CASCADE",
                "DROP FUNCTION IF EXISTS fg_nm_trig_fn() CASCADE",
                "DROP SCHEMA IF EXISTS fg_nm_iso CASCADE",
                "CREATE TABLE \"Fg Names Acc\" (id INT PRIMARY KEY, balance INT, current_token BIGINT)",
                "INSERT INTO \"Fg Names Acc\" (id, balance) VALUES (1, 100)");
    }

    private static FencedDataSource fence(DataSource target, String... tables) {
        FencingConfig.Builder config = FencingConfig.builder();
        for (String table : tables) {
            config.fence(table);
        }
        return FencedDataSource.wrap(target, config.build());
    }

    private static int update(DataSource dataSource, String sql, Object... params) throws Exception {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            return ps.executeUpdate();
        }
    }

    private List<String> rows(String table) throws Exception {
        List<String> rows = new ArrayList<>();
        try (Connection c = raw.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, balance, current_token FROM " + table + " ORDER BY id")) {
            while (rs.next()) {
                rows.add(rs.getInt(1) + ":" + rs.getInt(2) + ":" + rs.getObject(3));
            }
        }
        return rows;
    }

    @Test
    void aQuotedNameWithSpacesAndMixedCaseIsFencedAndUnicodeEscapesOfItAreRefused() throws Exception {
        FencedDataSource fenced = fence(raw, "\"Fg Names Acc\"");
        assertThat(as(RESOURCE, 10, () -> update(fenced, "UPDATE \"Fg Names Acc\" SET balance = ? WHERE id = 1", 110)))
                .isEqualTo(1);
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update(fenced,
                "UPDATE public.\"Fg Names Acc\" SET balance = ? WHERE id = 1", 666)))
                .isInstanceOf(StaleTokenException.class);
        // U&"Fg Names Ac\0063" is the same table to the server; the parser cannot read it, so it is refused
        String unicode = "UPDATE U&\"Fg Names Ac\\0063\" SET balance = ? WHERE id = 1";
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update(fenced, unicode, 666)))
                .isInstanceOfSatisfying(FencingRefusedException.class,
                        e -> assertThat(e.reason()).isEqualTo(Reason.UNPARSEABLE));
        assertThatThrownBy(() -> update(fenced, unicode, 666)).isInstanceOf(FencingRefusedException.class);
        String escapedWithOwnEscape = "UPDATE U&\"Fg Names Ac!0063\" UESCAPE '!' SET balance = ? WHERE id = 1";
        assertThatThrownBy(() -> as(RESOURCE, 11, () -> update(fenced, escapedWithOwnEscape, 666)))
                .isInstanceOf(FencingRefusedException.class);
        assertThat(rows("\"Fg Names Acc\"")).containsExactly("1:110:10");
        // a name with a space must be quoted; quoted in another case it is another table: refused at the first connection
        assertThatThrownBy(() -> fence(raw, "Fg Names Acc")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("quote");
        assertThatThrownBy(fence(raw, "\"fg names acc\"")::verify)
                .isInstanceOf(FencingConfigurationException.class).hasMessageContaining("did you mean public.\"Fg Names Acc\"");
    }

    @Test
    void unquotedNamesFoldToLowerCaseOnBothSides() throws Exception {
        TestDatabases.execute(raw, "CREATE TABLE fg_nm_fold (id INT PRIMARY KEY, balance INT, current_token BIGINT)",
                "INSERT INTO fg_nm_fold (id, balance) VALUES (1, 100)");
        FencedDataSource fenced = fence(raw, "FG_NM_FOLD");
        assertThat(as(RESOURCE, 10, () -> update(fenced, "UPDATE Fg_Nm_Fold SET balance = ? WHERE id = 1", 110)))
                .isEqualTo(1);
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update(fenced,
                "UPDATE PUBLIC.\"fg_nm_fold\" SET balance = ? WHERE id = 1", 666)))
                .isInstanceOf(StaleTokenException.class);
        assertThat(rows("fg_nm_fold")).containsExactly("1:110:10");
    }

    @Test
    void childrenAndPartitionsAreFencedWithTheirTableParentsViewsAndRulesAreRefused() throws Exception {
        TestDatabases.execute(raw,
                "CREATE TABLE fg_nm_base (id INT PRIMARY KEY, balance INT, current_token BIGINT)",
                "CREATE TABLE fg_nm_base_child (extra INT) INHERITS (fg_nm_base)",
                "CREATE TABLE fg_nm_part (id INT, balance INT, current_token BIGINT) PARTITION BY RANGE (id)",
                "CREATE TABLE fg_nm_part_low PARTITION OF fg_nm_part FOR VALUES FROM (0) TO (100)",
                "CREATE VIEW fg_nm_base_view AS SELECT id, balance FROM fg_nm_base",
                "CREATE VIEW fg_nm_view_of_view AS SELECT id, balance FROM fg_nm_base_view",
                "CREATE TABLE fg_nm_rule_src (id INT)",
                "CREATE RULE fg_nm_rule AS ON INSERT TO fg_nm_rule_src DO ALSO UPDATE fg_nm_base SET balance = 0",
                "CREATE TABLE fg_nm_trig_src (id INT)",
                "CREATE FUNCTION fg_nm_trig_fn() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                        + " UPDATE fg_nm_base SET balance = 0; RETURN NEW; END $$",
                "CREATE TRIGGER fg_nm_trig AFTER INSERT ON fg_nm_trig_src FOR EACH ROW EXECUTE FUNCTION fg_nm_trig_fn()",
                "INSERT INTO fg_nm_base (id, balance) VALUES (1, 100)",
                "INSERT INTO fg_nm_base_child (id, balance) VALUES (2, 200)",
                "INSERT INTO fg_nm_part (id, balance) VALUES (1, 100)");
        FencedDataSource fenced = fence(raw, "fg_nm_base", "fg_nm_part");
        // children and partitions: rows of the fenced table, fenced with it
        assertThat(as(RESOURCE, 10, () -> update(fenced, "UPDATE fg_nm_base_child SET balance = ? WHERE id = 2", 210)))
                .isEqualTo(1);
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update(fenced,
                "UPDATE fg_nm_base_child SET balance = ? WHERE id = 2", 666))).isInstanceOf(StaleTokenException.class);
        assertThat(as(RESOURCE, 10, () -> update(fenced, "UPDATE fg_nm_part_low SET balance = ? WHERE id = 1", 110)))
                .isEqualTo(1);
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update(fenced,
                "DELETE FROM fg_nm_part_low WHERE id = ?", 1))).isInstanceOf(StaleTokenException.class);
        // the parent's write through the child's rows is fenced too (same token column)
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update(fenced, "UPDATE fg_nm_base SET balance = ?", 666)))
                .isInstanceOf(StaleTokenException.class);
        List<String> before = List.of(rows("fg_nm_base").toString(), rows("fg_nm_part").toString());
        // views (also over views) and a rule elsewhere that writes the fenced table: refused, with and without a lease
        for (String write : List.of("UPDATE fg_nm_base_view SET balance = ? WHERE id = 1",
                "UPDATE fg_nm_view_of_view SET balance = ? WHERE id = 1",
                "INSERT INTO fg_nm_rule_src (id) VALUES (?)", "INSERT INTO fg_nm_trig_src (id) VALUES (?)")) {
            assertThatThrownBy(() -> as(RESOURCE, 11, () -> update(fenced, write, 5)))
                    .as(write).isInstanceOfSatisfying(FencingRefusedException.class, e -> {
                        assertThat(e.reason()).isEqualTo(Reason.UNSUPPORTED_FORM);
                        assertThat(e.getMessage()).contains("fg_nm_base");
                    });
            assertThatThrownBy(() -> update(fenced, write, 5)).isInstanceOf(FencingRefusedException.class);
        }
        // reading through the view is fine
        try (Connection c = fenced.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM fg_nm_view_of_view")) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(2);
        }
        assertThat(List.of(rows("fg_nm_base").toString(), rows("fg_nm_part").toString())).isEqualTo(before);
        assertThat(rows("fg_nm_base")).containsExactly("1:100:null", "2:210:10");

        // fencing only the child: a write to the parent would reach its rows unfenced, so it is refused
        FencedDataSource childOnly = fence(raw, "fg_nm_base_child");
        assertThatThrownBy(() -> as(RESOURCE, 11, () -> update(childOnly, "UPDATE fg_nm_base SET balance = ?", 7)))
                .isInstanceOfSatisfying(FencingRefusedException.class,
                        e -> assertThat(e.getMessage()).contains("parent of fenced table"));
        assertThat(rows("fg_nm_base")).containsExactly("1:100:null", "2:210:10");
    }

    @Test
    void aMisconfigurationFailsTheFirstConnectionWithOneLineNamingTheFix() throws Exception {
        TestDatabases.execute(raw, "CREATE TABLE fg_nm_nocol (id INT PRIMARY KEY)",
                "CREATE TABLE fg_nm_ruled (id INT PRIMARY KEY, current_token BIGINT)",
                "CREATE RULE fg_nm_ruled_rule AS ON DELETE TO fg_nm_ruled DO INSTEAD NOTHING",
                "CREATE TABLE fg_nm_base (id INT PRIMARY KEY, balance INT, current_token BIGINT)",
                "CREATE VIEW fg_nm_base_view AS SELECT id, balance FROM fg_nm_base");
        assertConfigurationError(fence(raw, "fg_nm_missing"), "fg_nm_missing does not exist", "create it");
        assertConfigurationError(fence(raw, "fg_nm_nocol"), "has no token column current_token", "ADD COLUMN");
        assertConfigurationError(fence(raw, "fg_nm_ruled"), "rewrite rule fg_nm_ruled_rule", "DROP RULE");
        assertConfigurationError(fence(raw, "fg_nm_base_view"), "is a view", "fence the table");
        assertConfigurationError(fence(raw, "\"FG_NM_BASE\""), "does not exist", "did you mean");
        // verify() fails the same way at start-up, before any connection is handed out
        assertThatThrownBy(fence(raw, "fg_nm_missing")::verify).isInstanceOf(FencingConfigurationException.class);
    }

    /** verify() fails, and so does every statement but a plain read, with and without a lease. */
    private static void assertConfigurationError(FencedDataSource fenced, String... parts) throws Exception {
        assertThatThrownBy(fenced::verify).isInstanceOfSatisfying(FencingConfigurationException.class, e -> {
            assertThat(e.getMessage()).contains(parts).doesNotContain("\n");
            assertThat(e.getSQLState()).isEqualTo(FencingConfigurationException.SQL_STATE);
        });
        try (Connection c = fenced.getConnection(); Statement s = c.createStatement()) {
            assertThatThrownBy(() -> as(RESOURCE, 10, () -> c.prepareStatement("UPDATE fg_nm_other SET x = ?")))
                    .isInstanceOf(FencingConfigurationException.class).hasMessageContaining(parts[0]);
            assertThatThrownBy(() -> s.execute("CREATE TABLE fg_nm_never (id INT)"))
                    .isInstanceOf(FencingConfigurationException.class);
            try (ResultSet rs = s.executeQuery("SELECT 1")) {
                assertThat(rs.next()).isTrue();
            }
        }
    }

    @Test
    void theStaleFunctionOutsideTheSearchPathIsFoundSchemaQualifiedOrIsATypedError() throws Exception {
        TestDatabases.execute(raw, "CREATE SCHEMA fg_nm_iso",
                "CREATE TABLE fg_nm_iso.acc (id INT PRIMARY KEY, balance INT, current_token BIGINT)",
                "INSERT INTO fg_nm_iso.acc (id, balance) VALUES (1, 100)");
        JdbcEndpoint server = TestServers.postgres();
        PGSimpleDataSource isolated = new PGSimpleDataSource();
        isolated.setUrl(server.url());
        isolated.setUser(server.user());
        isolated.setPassword(server.password());
        isolated.setCurrentSchema("fg_nm_iso");
        String write = "UPDATE acc SET balance = ? WHERE id = 1";

        FencedDataSource checked = fence(isolated, "fg_nm_iso.acc");
        assertThat(as(RESOURCE, 10, () -> update(checked, write, 110))).isEqualTo(1);
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update(checked, write, 666)))
                .isInstanceOf(StaleTokenException.class);
        assertThat(checked.explain(write)).contains("public.fenceguard_stale(");

        FencedDataSource unchecked = FencedDataSource.wrap(isolated,
                FencingConfig.builder().fence("fg_nm_iso.acc").verifyCatalog(false).build());
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update(unchecked, write, 666)))
                .isInstanceOfSatisfying(FencingConfigurationException.class,
                        e -> assertThat(e.getMessage()).contains("fenceguard_stale", "search_path", "migrations"));
        assertThat(rows("fg_nm_iso.acc")).containsExactly("1:110:10");
    }
}
