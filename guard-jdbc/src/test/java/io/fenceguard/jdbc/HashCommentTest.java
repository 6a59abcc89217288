package io.fenceguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * {@code #} on the real servers. On MariaDB it starts a comment to the end of the line: a rewrite that
 * put the statement on one line behind it would comment out the token check and the WHERE clause, and
 * the guarded statement would update every row. Each write runs unguarded and guarded (each in a
 * transaction rolled back) and must affect the same rows, or be refused; never more. On PostgreSQL
 * {@code #} is the bitwise XOR operator, no comment.
 */
class HashCommentTest {

    private static final String T = "fg_hash";
    private static final String RESOURCE = "jobs:hash";

    private DataSource raw;
    private FencedDataSource fenced;

    private void setUp(SqlDialect dialect) throws SQLException {
        raw = TestDatabases.of(dialect);
        TestDatabases.execute(raw, "DROP TABLE IF EXISTS " + T,
                "CREATE TABLE " + T + " (id INT PRIMARY KEY, a INT, note VARCHAR(40), current_token BIGINT)",
                "INSERT INTO " + T + " (id, a, note, current_token) VALUES (1, 10, '#one', NULL), (2, 20, 'two', NULL),"
                        + " (3, 30, 'x # y', NULL)");
        fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence(T).build());
    }

    @Test
    void mariaDbHashCommentBeforeTheWhereClauseKeepsTheWhereClause() throws Exception {
        setUp(SqlDialect.MARIADB);
        String sql = "UPDATE " + T + " SET a = ? # note\n WHERE id = ?";
        String rewritten = fenced.explain(sql);
        assertThat(rewritten).doesNotContain("#").doesNotContain("\n").contains("WHERE id = ?")
                .contains("current_token");

        Outcome original = run(raw, sql, false, 99, 2);
        Outcome guarded = run(fenced, sql, true, 99, 2);
        assertThat(original.count()).isEqualTo(1);
        assertThat(guarded).isEqualTo(original.withTokens(guarded));
        assertThat(guarded.rows()).containsExactly("1|10|null", "2|99|7", "3|30|null");

        // committed: the row carries the token; an older holder is refused by the row, nothing changes
        assertThat(TestFence.as(RESOURCE, 7, () -> update(fenced, sql, 21, 2))).isEqualTo(1);
        assertThatThrownBy(() -> TestFence.as(RESOURCE, 6, () -> update(fenced, sql, 22, 2)))
                .isInstanceOf(StaleTokenException.class);
        assertThat(rows(raw)).containsExactly("1|10|null", "2|21|7", "3|30|null");
    }

    @Test
    void mariaDbHashCommentsInWritesMeanWhatTheServerReads() throws Exception {
        setUp(SqlDialect.MARIADB);
        for (String sql : List.of(
                "UPDATE " + T + " SET a = ? # WHERE id = 3\n WHERE id = ?",
                "UPDATE " + T + " SET a = ? #\n WHERE id = ? # tail",
                "UPDATE " + T + "#\nSET a = ?#c\nWHERE id=?#",
                "UPDATE " + T + " SET a = ? WHERE note = '#one' OR id = ? # '\n",
                "UPDATE " + T + " SET a = ? WHERE note = 'x # y' # OR id = 1\n AND id = ?",
                "DELETE FROM " + T + " # all rows?\n WHERE a = ? OR id = ?",
                "INSERT INTO " + T + " (id, a) # VALUES (9, 9)\n VALUES (? # id\n, ?)")) {
            Outcome original = run(raw, sql, false, 40, 3);
            Outcome guarded = run(fenced, sql, true, 40, 3);
            assertThat(original.error()).as(sql).isNull();
            // a legit form (issue item 7): fenced, not refused
            assertThat(guarded.refused()).as(sql + ": " + guarded.error()).isFalse();
            assertThat(guarded).as(sql + "\n rewritten: " + fenced.explain(sql)).isEqualTo(original.withTokens(guarded));
            assertThat(guarded.count()).as(sql).isPositive();
        }
        assertThat(rows(raw)).as("every run was rolled back").containsExactly("1|10|null", "2|20|null", "3|30|null");
    }

    @Test
    void mariaDbHashCommentsInReadsPassAsWritten() throws Exception {
        setUp(SqlDialect.MARIADB);
        try (Connection c = fenced.getConnection()) {
            try (PreparedStatement read = c.prepareStatement("SELECT a FROM " + T + " # all of them?\n WHERE id = ?")) {
                read.setInt(1, 2);
                assertThat(values(read.executeQuery())).containsExactly(20);
            }
            try (Statement read = c.createStatement()) {
                assertThat(values(read.executeQuery("SELECT a FROM " + T + " WHERE note = '#one' # OR 1 = 1\n"
                        + " ORDER BY id"))).containsExactly(10);
            }
            TestFence.as(RESOURCE, 7, () -> {
                try (PreparedStatement read = c.prepareStatement("SELECT a FROM " + T + " WHERE id > ? # c\n ORDER BY id")) {
                    read.setInt(1, 1);
                    assertThat(values(read.executeQuery())).containsExactly(20, 30);
                }
                return null;
            });
        }
    }

    /** On PostgreSQL {@code #} is XOR: the guarded write computes the same, or is refused. */
    @Test
    void postgresHashIsAnOperatorNotAComment() throws Exception {
        setUp(SqlDialect.POSTGRESQL);
        for (String sql : List.of("UPDATE " + T + " SET a = a # ? WHERE id = ?",
                "UPDATE " + T + " SET a = ? WHERE note = '#one' OR id = ?")) {
            Outcome original = run(raw, sql, false, 5, 2);
            Outcome guarded = run(fenced, sql, true, 5, 2);
            assertThat(original.error()).as(sql).isNull();
            if (guarded.refused()) {
                assertThat(guarded.error()).as(sql).contains(T);
                continue;
            }
            assertThat(guarded).as(sql).isEqualTo(original.withTokens(guarded));
        }
        assertThat(run(raw, "UPDATE " + T + " SET a = a # ? WHERE id = ?", false, 5, 2).rows())
                .as("20 XOR 5").contains("2|17|null");
    }

    record Outcome(boolean refused, String error, int count, List<String> rows) {

        /** The rows with the token column as the guarded run left it: what the guard adds, the only difference. */
        Outcome withTokens(Outcome guarded) {
            List<String> stamped = new ArrayList<>();
            for (int i = 0; i < rows.size(); i++) {
                String mine = rows.get(i);
                String theirs = i < guarded.rows().size() ? guarded.rows().get(i) : mine;
                stamped.add(mine.substring(0, mine.lastIndexOf('|')) + theirs.substring(theirs.lastIndexOf('|')));
            }
            return new Outcome(refused, error, count, stamped);
        }
    }

    private static Outcome run(DataSource dataSource, String sql, boolean guarded, Object... params) throws Exception {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                return guarded ? TestFence.as(RESOURCE, 7, () -> execute(c, sql, params)) : execute(c, sql, params);
            } finally {
                c.rollback();
            }
        }
    }

    private static Outcome execute(Connection c, String sql, Object... params) throws SQLException {
        int count;
        try (PreparedStatement statement = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                statement.setObject(i + 1, params[i]);
            }
            count = statement.executeUpdate();
        } catch (FencingRefusedException refused) {
            return new Outcome(true, refused.getMessage(), -1, List.of());
        } catch (SQLException error) {
            return new Outcome(false, error.getMessage(), -1, List.of());
        }
        return new Outcome(false, null, count, rows(c));
    }

    private static int update(DataSource dataSource, String sql, Object... params) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement statement = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                statement.setObject(i + 1, params[i]);
            }
            return statement.executeUpdate();
        }
    }

    private static List<String> rows(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return rows(c);
        }
    }

    private static List<String> rows(Connection c) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (PreparedStatement read = c.prepareStatement("SELECT id, a, current_token FROM " + T + " ORDER BY id");
             ResultSet rs = read.executeQuery()) {
            while (rs.next()) {
                rows.add(rs.getInt(1) + "|" + rs.getObject(2) + "|" + rs.getObject(3));
            }
        }
        return rows;
    }

    private static List<Integer> values(ResultSet rs) throws SQLException {
        List<Integer> values = new ArrayList<>();
        try (rs) {
            while (rs.next()) {
                values.add(rs.getInt(1));
            }
        }
        return values;
    }
}
