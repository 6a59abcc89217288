package io.fenceguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Odd input against two fenced tables ({@code fg_odd}, {@code fg_ödd}) whose rows carry a newer token
 * than the lease, on every database: whatever each statement does (pass, fail in the database, get
 * refused), no existing fenced row may change and any new fenced row must carry the lease's token.
 * A statement that reached a fenced table unfenced would break that. Statements on the unfenced
 * table {@code fg_odd_other} that must pass through are checked for their effect.
 */
class OddStatementsTest {

    private static final String T = "fg_odd";
    private static final String UNICODE_T = "fg_ödd";
    private static final long ROW_TOKEN = 100;
    private static final long LEASE_TOKEN = 7;
    private static final List<String> OTHER_INITIAL = List.of("1:a", "2:b");

    /** Run on every database. */
    private static final List<String> COMMON = List.of(
            "UPDATE fg_odd SET v = 'x'",
            "UPDATE fg_odd SET v = 'x' WHERE id = 1",
            "update FG_ODD set v = 'x' where id = 1",
            "UPDATE \"FG_ODD\" SET v = 'x'",
            "UPDATE \"fg_odd\" SET v = 'x'",
            "UPDATE fg_odd /* comment */ SET v = 'x' -- trailing",
            "/* leading */ UPDATE fg_odd SET v = 'x'",
            "UPDATE fg_odd SET v = 'x' -- ; DELETE FROM fg_odd_other",
            "UPDATE fg_odd SET v = 'x';",
            "UPDATE fg_odd SET v = 'x'; UPDATE fg_odd SET v = 'y'",
            "SELECT 1; UPDATE fg_odd SET v = 'x'",
            "UPDATE fg_odd_other SET w = 'x'; UPDATE fg_odd SET v = 'x'",
            "UPDATE fg_odd SET v = 'x' WHERE",
            "UPDATE fg_odd SET",
            "UPDATE fg_odd SET v = 'unterminated",
            "UPDATE fg_odd SET v = 'x' WHERE id = (1",
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
            "UPDATE fg_odd SET v = '中文', id = id WHERE id > 0",
            "UPDATE IGNORE fg_odd SET v = 'x'",
            "UPDATE LOW_PRIORITY fg_odd SET v = 'x'",
            "DELETE FROM fg_odd",
            "DELETE fg_odd",
            "DELETE FROM fg_odd WHERE id = 1 OR id = 2",
            "DELETE FROM fg_odd WHERE id IN (SELECT id FROM fg_odd_other)",
            "DELETE FROM fg_odd LIMIT 1",
            "DELETE IGNORE FROM fg_odd",
            "TRUNCATE TABLE fg_odd",
            "TRUNCATE fg_odd",
            "TRUNCATE TABLE fg_odd_other, fg_odd",
            "DROP TABLE fg_odd",
            "DROP TABLE IF EXISTS fg_odd_other, fg_odd",
            "MERGE INTO fg_odd KEY (id) VALUES (1, 'x', 1)",
            "MERGE INTO fg_odd t USING fg_odd_other s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = 'x'",
            "REPLACE INTO fg_odd (id, v) VALUES (1, 'x')",
            "INSERT INTO fg_odd VALUES (10, 'x', 7)",
            "INSERT INTO fg_odd (id, v) VALUES (11, 'x')",
            "INSERT INTO fg_odd (id, v) VALUES (1, 'duplicate key')",
            "INSERT INTO fg_odd (id, v, current_token) VALUES (12, 'x', 1000)",
            "INSERT INTO fg_odd (id, v) SELECT id + 100, w FROM fg_odd_other",
            "INSERT INTO fg_odd (id, v) SELECT id + 200, w FROM fg_odd_other UNION SELECT 300, 'u'",
            "INSERT INTO fg_odd SET id = 13, v = 'x'",
            "WITH x AS (SELECT 1 AS id) UPDATE fg_odd SET v = 'x' WHERE id IN (SELECT id FROM x)",
            "WITH d AS (DELETE FROM fg_odd RETURNING id) SELECT * FROM d",
            "SELECT * FROM fg_odd FOR UPDATE",
            "SELECT * FROM FINAL TABLE (UPDATE fg_odd SET v = 'x')",
            "CALL fg_odd_proc()",
            "{call fg_odd_proc()}",
            "EXPLAIN UPDATE fg_odd SET v = 'x'",
            "CREATE INDEX fg_odd_v ON fg_odd (v)",
            "ALTER TABLE fg_odd ADD COLUMN extra INT",
            "SET @x = 1",
            "garbage that is not sql",
            "",
            // the unicode-named fenced table
            "UPDATE fg_ödd SET v = 'x'",
            "UPDATE fg_ödd AS ü SET v = 'x' WHERE ü.id = 1",
            "update FG_ÖDD set v = 'x'",
            "DELETE FROM fg_ödd WHERE v = 'eins'",
            "INSERT INTO fg_ödd (id, v) VALUES (3, 'drei')",
            "INSERT INTO fg_ödd (id, v, current_token) VALUES (4, 'vier', 1)",
            "UPDATE fg_ödd SET v = ",
            "UPDATE fg_odd_other o SET w = 'x' WHERE o.id IN (SELECT id FROM fg_ödd); DELETE FROM fg_ödd");

    /** Writes to the unfenced table, and reads: they must pass through and do exactly this to fg_odd_other. */
    private static final Map<String, List<String>> PASS_THROUGH = passThrough();

    private static Map<String, List<String>> passThrough() {
        Map<String, List<String>> pass = new LinkedHashMap<>();
        pass.put("UPDATE fg_odd_other SET w = 'x'", List.of("1:x", "2:x"));
        pass.put("DELETE FROM fg_odd_other WHERE id = 2", List.of("1:a"));
        pass.put("INSERT INTO fg_odd_other (id, w) VALUES (50, 'ok')", List.of("1:a", "2:b", "50:ok"));
        pass.put("UPDATE fg_odd_other SET w = 'ünï' WHERE w <> 'ß'", List.of("1:ünï", "2:ünï"));
        pass.put("UPDATE fg_odd_other SET w = (SELECT v FROM fg_odd WHERE id = 1) WHERE id = 2",
                List.of("1:a", "2:one"));
        pass.put("INSERT INTO fg_odd_other (id, w) SELECT id + 10, v FROM fg_ödd", List.of("1:a", "2:b", "11:eins"));
        pass.put("/* fg_odd */ UPDATE fg_odd_other SET w = 'c' -- DELETE FROM fg_odd", List.of("1:c", "2:c"));
        pass.put("DELETE FROM fg_odd_other WHERE id IN (SELECT id FROM fg_odd WHERE v = 'one')", List.of("2:b"));
        pass.put("SELECT * FROM fg_odd", OTHER_INITIAL);
        pass.put("SELECT * FROM fg_odd WHERE v = 'UPDATE fg_odd SET v = 1'", OTHER_INITIAL);
        pass.put("select count(*) from fg_ödd ö join fg_odd_other o on o.id = ö.id", OTHER_INITIAL);
        return pass;
    }

    private static List<String> extra(SqlDialect dialect) {
        return switch (dialect) {
            case POSTGRESQL -> List.of(
                    "UPDATE public.fg_odd SET v = 'x'",
                    "UPDATE ONLY fg_odd SET v = 'x'",
                    "DELETE FROM ONLY fg_odd",
                    "UPDATE fg_odd SET v = 'x' RETURNING *",
                    "DELETE FROM fg_odd RETURNING id",
                    "UPDATE fg_odd SET (v) = ROW('x')",
                    "UPDATE fg_odd SET v = $$x$$",
                    "UPDATE fg_odd SET v = $tag$x$tag$ WHERE id = 1",
                    "UPDATE fg_odd SET v = E'\\x41'",
                    "UPDATE fg_odd SET v = 'x'::text WHERE id = 1::bigint",
                    "UPDATE fg_odd SET v = 'x' WHERE CURRENT OF c",
                    "UPDATE fg_odd AS \"Ü\" SET v = 'x' WHERE \"Ü\".id = 1",
                    "UPDATE fg_odd o SET v = x.w FROM fg_odd_other x WHERE x.id = o.id",
                    "DELETE FROM fg_odd o USING fg_odd_other x WHERE x.id = o.id",
                    "INSERT INTO fg_odd (id, v) VALUES (1, 'x') ON CONFLICT (id) DO UPDATE SET v = 'y'",
                    "INSERT INTO fg_odd (id, v) VALUES (1, 'x') ON CONFLICT DO NOTHING",
                    "INSERT INTO fg_odd (id, v) OVERRIDING SYSTEM VALUE VALUES (14, 'x')",
                    "INSERT INTO fg_odd DEFAULT VALUES",
                    "WITH u AS (UPDATE fg_odd SET v = 'x' RETURNING id) SELECT * FROM u",
                    "WITH i AS (INSERT INTO fg_odd (id, v) VALUES (15, 'x') RETURNING id) SELECT * FROM i",
                    "MERGE INTO fg_odd t USING fg_odd_other s ON t.id = s.id WHEN MATCHED THEN DELETE",
                    "COPY fg_odd (id, v) FROM PROGRAM 'echo 16,x' WITH (FORMAT csv)",
                    "COPY fg_odd FROM STDIN",
                    "PREPARE fg_p AS UPDATE fg_odd SET v = 'x'",
                    "EXECUTE fg_p",
                    "DO $$ BEGIN UPDATE fg_odd SET v = 'x'; END $$",
                    "SELECT fenceguard_stale('fg_odd', 1, 2)",
                    "LOCK TABLE fg_odd IN ACCESS EXCLUSIVE MODE",
                    "SELECT * FROM fg_odd_other; UPDATE fg_odd SET v = 'x'",
                    // lexed differently by PostgreSQL (nested comments, E'' and dollar strings) than by a naive parser
                    "WITH c AS (SELECT 1 /* /* */ AS x) UPDATE fg_odd_other SET w = 'y' -- */) UPDATE fg_odd SET v = 'y'",
                    "WITH c AS (SELECT E'a\\') UPDATE fg_odd_other SET w = 1 --') UPDATE fg_odd SET v = 'y'",
                    "WITH c AS (SELECT e'a\\') UPDATE fg_odd_other SET w = 1 --') DELETE FROM fg_odd",
                    "WITH c AS (SELECT $$'$$) UPDATE fg_odd SET v = 'y' --') UPDATE fg_odd_other SET w = 'y'",
                    "WITH c AS (SELECT $q$ $q$ AS x) UPDATE fg_odd_other SET w = '$q$' WHERE x = '$q$'",
                    "UPDATE \"fg_ödd\" SET v = 'x'",
                    "UPDATE public.\"fg_ödd\" ö SET v = ö.v || 'x'");
            case MARIADB -> List.of(
                    "UPDATE test.fg_odd SET v = 'x'",
                    "UPDATE `fg_odd` SET `v` = 'x'",
                    "UPDATE `test`.`fg_odd` SET v = 'x'",
                    "UPDATE fg_odd SET v = 'x' ORDER BY id LIMIT 1",
                    "UPDATE fg_odd o JOIN fg_odd_other x ON x.id = o.id SET o.v = x.w",
                    "UPDATE fg_odd_other x JOIN fg_odd o ON x.id = o.id SET o.v = x.w",
                    "UPDATE fg_odd_other x, fg_odd o SET o.v = x.w WHERE x.id = o.id",
                    "DELETE o FROM fg_odd o JOIN fg_odd_other x ON x.id = o.id",
                    "DELETE FROM fg_odd USING fg_odd JOIN fg_odd_other x ON x.id = fg_odd.id",
                    "DELETE FROM fg_odd WHERE id = 1 RETURNING id",
                    "INSERT INTO fg_odd (id, v) VALUES (1, 'x') ON DUPLICATE KEY UPDATE v = 'y'",
                    "INSERT INTO fg_odd (id, v) VALUES (1, 'x') ON DUPLICATE KEY UPDATE current_token = 0",
                    "INSERT IGNORE INTO fg_odd (id, v) VALUES (1, 'x')",
                    "INSERT INTO fg_odd (id, v) VALUES (17, 'x') RETURNING id",
                    "INSERT DELAYED INTO fg_odd (id, v) VALUES (18, 'x')",
                    "REPLACE INTO fg_odd SET id = 1, v = 'x'",
                    "REPLACE fg_odd (id, v) SELECT id, w FROM fg_odd_other",
                    "LOAD DATA LOCAL INFILE '/dev/null' INTO TABLE fg_odd",
                    "UPDATE fg_odd SET v = 'it\\'s' WHERE id = 1",
                    "UPDATE fg_odd SET v = \"double quoted\"",
                    "UPDATE fg_odd SET v = 'x' # hash comment",
                    "HANDLER fg_odd OPEN",
                    "LOCK TABLES fg_odd WRITE",
                    "UPDATE `fg_ödd` SET v = 'x'",
                    // executable comments: MariaDB runs their content, a parser sees a comment
                    "/*! UPDATE fg_odd SET v = 'x' */",
                    "/*!40000 DELETE FROM fg_odd */",
                    "UPDATE fg_odd_other /*!, fg_odd */ SET v = 'x'",
                    "UPDATE fg_odd_other /*M!100000 , fg_odd */ SET v = 'x'",
                    "DELETE /*! fg_odd */ FROM fg_odd",
                    "INSERT INTO fg_odd_other (id, w) VALUES (60, 'x') /*! ; DELETE FROM fg_odd */",
                    // backslash escapes: MariaDB ends this string later than standard SQL would
                    "UPDATE fg_odd_other SET w = 'a\\' WHERE id = 1 -- ' , v = 'x'",
                    "SELECT 'a\\'; UPDATE fg_odd SET v = 1 -- '");
            case H2 -> List.of(
                    "UPDATE PUBLIC.fg_odd SET v = 'x'",
                    "UPDATE \"PUBLIC\".\"FG_ODD\" SET \"V\" = 'x'",
                    "UPDATE fg_odd SET (v) = ('x')",
                    "MERGE INTO fg_odd (id, v) KEY (id) VALUES (1, 'x')",
                    "MERGE INTO fg_odd USING (SELECT 1 AS id) s ON fg_odd.id = s.id WHEN MATCHED THEN DELETE",
                    "SELECT * FROM FINAL TABLE (DELETE FROM fg_odd)",
                    "SELECT * FROM NEW TABLE (INSERT INTO fg_odd (id, v) VALUES (19, 'x'))",
                    "DELETE FROM fg_odd FETCH FIRST 1 ROWS ONLY",
                    "UPDATE fg_odd SET v = 'x' LIMIT 1",
                    "UPDATE fg_odd SET v = $$x$$",
                    "UPDATE fg_odd SET v = U&'\\00fc'",
                    "RUNSCRIPT FROM 'nonexistent.sql'",
                    "UPDATE \"FG_ÖDD\" SET v = 'x'");
        };
    }

    private DataSource raw;
    private FencedDataSource fenced;

    @ParameterizedTest
    @EnumSource(SqlDialect.class)
    void noOddStatementReachesAFencedTableUnfenced(SqlDialect dialect) throws Exception {
        raw = TestDatabases.of(dialect);
        fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence(T).fence(UNICODE_T).build());
        recreate();
        List<String> corpus = new ArrayList<>(COMMON);
        corpus.addAll(PASS_THROUGH.keySet());
        corpus.addAll(extra(dialect));
        assertThat(corpus).doesNotHaveDuplicates().hasSizeGreaterThanOrEqualTo(80);

        Map<String, Integer> outcomes = new TreeMap<>();
        List<String> violations = new ArrayList<>();
        for (String sql : corpus) {
            for (boolean prepared : new boolean[] {true, false}) {
                for (boolean leased : new boolean[] {true, false}) {
                    String what = dialect + " " + sql + " [" + (prepared ? "prepared" : "statement")
                            + (leased ? ", leased]" : "]");
                    reset();
                    String outcome = leased ? TestFence.as("odd", LEASE_TOKEN, () -> run(sql, prepared))
                            : run(sql, prepared);
                    outcomes.merge(outcome, 1, Integer::sum);
                    checkUntouched(what, violations);
                    if (PASS_THROUGH.containsKey(sql)
                            && (!outcome.equals("ok") || !otherRows().equals(PASS_THROUGH.get(sql)))) {
                        violations.add(what + " should pass through and leave fg_odd_other "
                                + PASS_THROUGH.get(sql) + " but was " + outcome + " with " + otherRows());
                    }
                }
            }
        }
        assertThat(violations).as(dialect + " " + outcomes).isEmpty();
        assertThat(outcomes.get("refused")).as(dialect + " " + outcomes).isGreaterThan(150);
        assertThat(outcomes.get("stale")).as(dialect + " " + outcomes).isGreaterThan(10);
        assertThat(outcomes.get("ok")).as(dialect + " " + outcomes).isGreaterThan(4 * PASS_THROUGH.size());
        assertThat(outcomes.get("database error")).as(dialect + " " + outcomes).isPositive();
    }

    private String run(String sql, boolean prepared) {
        try (Connection c = fenced.getConnection()) {
            if (prepared) {
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                    if (sql.contains("?")) {
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
            assertThat(e.getSQLState()).isEqualTo(FencingRefusedException.SQL_STATE);
            return "refused";
        } catch (StaleTokenException e) {
            return "stale";
        } catch (SQLException e) {
            return "database error";
        }
    }

    private void recreate() throws SQLException {
        TestDatabases.execute(raw, "DROP TABLE IF EXISTS " + T, "DROP TABLE IF EXISTS " + UNICODE_T,
                "DROP TABLE IF EXISTS fg_odd_other",
                "CREATE TABLE " + T + " (id INT PRIMARY KEY, v VARCHAR(50), current_token BIGINT)",
                "CREATE TABLE " + UNICODE_T + " (id INT PRIMARY KEY, v VARCHAR(50), current_token BIGINT)",
                "CREATE TABLE fg_odd_other (id INT PRIMARY KEY, w VARCHAR(50))");
    }

    /** Back to the initial rows; recreates the tables if a statement dropped or altered one. */
    private void reset() throws SQLException {
        try {
            deleteAndInsert();
        } catch (SQLException dropped) {
            recreate();
            deleteAndInsert();
        }
    }

    private void deleteAndInsert() throws SQLException {
        TestDatabases.execute(raw, "DELETE FROM " + T, "DELETE FROM " + UNICODE_T, "DELETE FROM fg_odd_other",
                "INSERT INTO " + T + " (id, v, current_token) VALUES (1, 'one', " + ROW_TOKEN + "), (2, 'two', "
                        + ROW_TOKEN + ")",
                "INSERT INTO " + UNICODE_T + " (id, v, current_token) VALUES (1, 'eins', " + ROW_TOKEN + ")",
                "INSERT INTO fg_odd_other (id, w) VALUES (1, 'a'), (2, 'b')");
    }

    private void checkUntouched(String what, List<String> violations) {
        checkFencedRows(T, what, violations, "1:one:" + ROW_TOKEN, "2:two:" + ROW_TOKEN);
        checkFencedRows(UNICODE_T, what, violations, "1:eins:" + ROW_TOKEN);
    }

    private void checkFencedRows(String table, String what, List<String> violations, String... initial) {
        List<String> rows = new ArrayList<>();
        try (Connection c = raw.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, v, current_token FROM " + table + " ORDER BY id")) {
            while (rs.next()) {
                rows.add(rs.getInt(1) + ":" + rs.getString(2) + ":" + rs.getObject(3));
            }
        } catch (SQLException e) {
            violations.add(what + " removed fenced table " + table + ": " + e);
            return;
        }
        boolean kept = rows.size() >= initial.length && rows.subList(0, initial.length).equals(List.of(initial));
        boolean stamped = rows.stream().skip(initial.length).allMatch(r -> r.endsWith(":" + LEASE_TOKEN));
        if (!kept || !stamped) {
            violations.add(what + " wrote fenced table " + table + " unfenced: " + rows);
        }
    }

    private List<String> otherRows() throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = raw.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, w FROM fg_odd_other ORDER BY id")) {
            while (rs.next()) {
                rows.add(rs.getInt(1) + ":" + rs.getString(2));
            }
        }
        return rows;
    }
}
