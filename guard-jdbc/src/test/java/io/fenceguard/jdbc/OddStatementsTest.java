package io.fenceguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Odd input against a fenced table whose rows carry a newer token than the lease: whatever each
 * statement does (pass, fail in the database, get refused), no existing row may change and any new
 * row must carry the lease's token. A statement that reached the table unfenced would break that.
 */
class OddStatementsTest {

    private static final String T = "fg_odd";
    private static final long ROW_TOKEN = 100;
    private static final long LEASE_TOKEN = 7;

    private static final List<String> STATEMENTS = List.of(
            "UPDATE fg_odd SET v = 'x'",
            "UPDATE fg_odd SET v = 'x' WHERE id = 1",
            "update FG_ODD set v = 'x' where id = 1",
            "UPDATE \"FG_ODD\" SET v = 'x'",
            "UPDATE PUBLIC.fg_odd SET v = 'x'",
            "UPDATE fg_odd /* comment */ SET v = 'x' -- trailing",
            "/* leading */ UPDATE fg_odd SET v = 'x'",
            "UPDATE fg_odd SET v = 'x';",
            "UPDATE fg_odd SET v = 'x'; UPDATE fg_odd SET v = 'y'",
            "SELECT 1; UPDATE fg_odd SET v = 'x'",
            "UPDATE fg_odd SET v = 'x' WHERE",
            "UPDATE fg_odd SET",
            "UPDATE fg_odd SET v = 'unterminated",
            "UPDATE fg_odd SET v = ? WHERE id = ?",
            "UPDATE fg_odd SET v = ?1",
            "UPDATE fg_odd SET v = :name",
            "UPDATE fg_odd SET v = $1",
            "UPDATE fg_odd SET current_token = 1",
            "UPDATE fg_odd SET CURRENT_TOKEN = 1, v = 'x'",
            "UPDATE fg_odd o SET v = 'x' WHERE o.id IN (SELECT id FROM fg_odd_other)",
            "UPDATE fg_odd SET v = (SELECT max(w) FROM fg_odd_other)",
            "UPDATE fg_odd SET v = 'x' WHERE id = 1 OR 1 = 1",
            "UPDATE fg_odd SET v = 'ünïcödé' WHERE v <> 'ß'",
            "UPDATE IGNORE fg_odd SET v = 'x'",
            "UPDATE LOW_PRIORITY fg_odd SET v = 'x'",
            "DELETE FROM fg_odd",
            "DELETE fg_odd",
            "DELETE FROM fg_odd WHERE id = 1 OR id = 2",
            "DELETE FROM fg_odd o WHERE EXISTS (SELECT 1 FROM fg_odd_other x WHERE x.id = o.id)",
            "DELETE FROM fg_odd LIMIT 1",
            "DELETE IGNORE FROM fg_odd",
            "TRUNCATE TABLE fg_odd",
            "DROP TABLE fg_odd",
            "MERGE INTO fg_odd KEY (id) VALUES (1, 'x', 1)",
            "MERGE INTO fg_odd t USING fg_odd_other s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = 'x'",
            "REPLACE INTO fg_odd (id, v) VALUES (1, 'x')",
            "INSERT INTO fg_odd VALUES (10, 'x', 7)",
            "INSERT INTO fg_odd (id, v) VALUES (11, 'x')",
            "INSERT INTO fg_odd (id, v, current_token) VALUES (12, 'x', 1000)",
            "INSERT INTO fg_odd (id, v) SELECT id + 100, w FROM fg_odd_other",
            "INSERT INTO fg_odd (id, v) SELECT id + 200, w FROM fg_odd_other UNION SELECT 300, 'u'",
            "INSERT INTO fg_odd SET id = 13, v = 'x'",
            "WITH x AS (SELECT 1 AS id) UPDATE fg_odd SET v = 'x' WHERE id IN (SELECT id FROM x)",
            "WITH d AS (DELETE FROM fg_odd RETURNING id) SELECT * FROM d",
            "SELECT * FROM fg_odd",
            "SELECT * FROM fg_odd FOR UPDATE",
            "SELECT * FROM fg_odd WHERE v = 'UPDATE fg_odd SET v = 1'",
            "SELECT * FROM FINAL TABLE (UPDATE fg_odd SET v = 'x')",
            "CALL fg_odd_proc()",
            "{call fg_odd_proc()}",
            "EXPLAIN UPDATE fg_odd SET v = 'x'",
            "UPDATE fg_odd_other SET w = 'x'",
            "DELETE FROM fg_odd_other WHERE id = 99",
            "INSERT INTO fg_odd_other (id, w) VALUES (50, 'ok')",
            "UPDATE \"fg_odd_other\" SET w = 'ü'",
            "CREATE INDEX fg_odd_v ON fg_odd (v)",
            "ALTER TABLE fg_odd ADD COLUMN extra INT",
            "SET @x = 1",
            "garbage that is not sql",
            "");

    private DataSource raw;
    private FencedDataSource fenced;

    @BeforeEach
    void createTables() throws SQLException {
        raw = TestDatabases.of(SqlDialect.H2);
        TestDatabases.execute(raw, "DROP TABLE IF EXISTS " + T, "DROP TABLE IF EXISTS fg_odd_other",
                "CREATE TABLE " + T + " (id INT PRIMARY KEY, v VARCHAR(50), current_token BIGINT)",
                "CREATE TABLE fg_odd_other (id INT PRIMARY KEY, w VARCHAR(50))",
                "INSERT INTO fg_odd_other VALUES (1, 'a'), (2, 'b')");
        fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence(T).fenceSource(TestFence.source()).build());
    }

    @Test
    void noOddStatementReachesTheFencedTableUnfenced() throws Exception {
        assertThat(STATEMENTS).hasSizeGreaterThanOrEqualTo(50);
        Map<String, Integer> outcomes = new TreeMap<>();
        for (String sql : STATEMENTS) {
            for (boolean prepared : new boolean[] {true, false}) {
                for (boolean leased : new boolean[] {true, false}) {
                    reset();
                    String outcome = leased ? TestFence.as("odd", LEASE_TOKEN, () -> run(sql, prepared))
                            : run(sql, prepared);
                    outcomes.merge(outcome, 1, Integer::sum);
                    assertUntouched(sql + " [" + (prepared ? "prepared" : "statement") + (leased ? ", leased]" : "]"));
                }
            }
        }
        assertThat(outcomes.get("refused")).isGreaterThan(100);
        assertThat(outcomes.get("stale")).isPositive();
        assertThat(outcomes.get("ok")).isPositive();
    }

    private String run(String sql, boolean prepared) {
        try (Connection c = fenced.getConnection()) {
            if (prepared) {
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                    if (ps.getParameterMetaData().getParameterCount() > 0) {
                        ps.setString(1, "p");
                        ps.setInt(2, 1);
                    }
                    ps.execute();
                }
            } else {
                try (Statement s = c.createStatement()) {
                    s.execute(sql);
                }
            }
            return "ok";
        } catch (FencingRefusedException e) {
            assertThat(e.getMessage()).contains(sql);
            return "refused";
        } catch (StaleTokenException e) {
            return "stale";
        } catch (SQLException e) {
            return "database error";
        }
    }

    private void reset() throws SQLException {
        TestDatabases.execute(raw, "DROP TABLE IF EXISTS " + T,
                "CREATE TABLE " + T + " (id INT PRIMARY KEY, v VARCHAR(50), current_token BIGINT)",
                "INSERT INTO " + T + " VALUES (1, 'one', " + ROW_TOKEN + "), (2, 'two', " + ROW_TOKEN + ")");
    }

    private void assertUntouched(String what) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = raw.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, v, current_token FROM " + T + " ORDER BY id")) {
            while (rs.next()) {
                rows.add(rs.getInt(1) + ":" + rs.getString(2) + ":" + rs.getLong(3));
            }
        } catch (SQLException e) {
            throw new AssertionError(what + " removed the fenced table", e);
        }
        assertThat(rows).as(what).startsWith("1:one:" + ROW_TOKEN, "2:two:" + ROW_TOKEN);
        assertThat(rows.subList(2, rows.size())).as(what).allMatch(r -> r.endsWith(":" + LEASE_TOKEN));
    }
}
