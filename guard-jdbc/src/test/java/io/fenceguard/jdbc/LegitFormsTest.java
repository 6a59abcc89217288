package io.fenceguard.jdbc;

import static io.fenceguard.jdbc.TestFence.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Forms that were refused and are fenced now: an INSERT (and upsert) whose column list gives the token
 * column a value (an entity mapping every column) is stamped with the lease's token; PostgreSQL's
 * {@code UPDATE ONLY t}, {@code DELETE FROM ONLY t} and {@code t *}.
 */
class LegitFormsTest {

    private static final String RESOURCE = "jobs:legit";

    private DataSource raw;
    private String table;
    private FencedDataSource fenced;

    private void setUp(SqlDialect dialect) throws Exception {
        raw = TestDatabases.of(dialect);
        table = "fg_legit_" + dialect.name().toLowerCase(Locale.ROOT);
        TestDatabases.execute(raw, "DROP TABLE IF EXISTS " + table + (dialect == SqlDialect.POSTGRESQL ? " CASCADE" : ""),
                "CREATE TABLE " + table + " (id INT PRIMARY KEY, balance INT, current_token BIGINT)",
                "INSERT INTO " + table + " (id, balance) VALUES (1, 100)");
        fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence(table).build());
    }

    private int update(String sql, Object... params) throws Exception {
        try (Connection c = fenced.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                if (params[i] == null) {
                    ps.setNull(i + 1, Types.BIGINT);
                } else {
                    ps.setObject(i + 1, params[i]);
                }
            }
            return ps.executeUpdate();
        }
    }

    private List<String> rows() throws Exception {
        List<String> rows = new ArrayList<>();
        try (Connection c = raw.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, balance, current_token FROM " + table + " ORDER BY id")) {
            while (rs.next()) {
                rows.add(rs.getInt(1) + ":" + rs.getInt(2) + ":" + rs.getObject(3));
            }
        }
        return rows;
    }

    @ParameterizedTest
    @EnumSource(value = SqlDialect.class, names = {"POSTGRESQL", "MARIADB"})
    void anInsertGivingTheTokenColumnAValueIsStampedWithTheLeasesToken(SqlDialect dialect) throws Exception {
        setUp(dialect);
        String insert = "INSERT INTO " + table + " (id, balance, current_token) VALUES (?, ?, ?)";
        assertThat(as(RESOURCE, 10, () -> update(insert, 2, 200, null))).isEqualTo(1);
        assertThat(as(RESOURCE, 10, () -> update(insert, 3, 300, 4L))).isEqualTo(1);
        // a value above the lease's token is a newer holder's: refused as stale, nothing inserted
        assertThatThrownBy(() -> as(RESOURCE, 10, () -> update(insert, 4, 400, 11L)))
                .isInstanceOf(StaleTokenException.class);
        assertThat(as(RESOURCE, 10, () -> update("INSERT INTO " + table + " (id, balance, current_token)"
                + " VALUES (?, ?, NULL), (?, ?, 0)", 5, 500, 6, 600))).isEqualTo(2);
        assertThatThrownBy(() -> update(insert, 7, 700, null)).isInstanceOf(FencingRefusedException.class);
        assertThat(rows()).containsExactly("1:100:null", "2:200:10", "3:300:10", "5:500:10", "6:600:10");

        String upsert = dialect == SqlDialect.POSTGRESQL
                ? "INSERT INTO " + table + " (id, balance, current_token) VALUES (?, ?, ?)"
                        + " ON CONFLICT (id) DO UPDATE SET balance = EXCLUDED.balance"
                : "INSERT INTO " + table + " (id, balance, current_token) VALUES (?, ?, ?)"
                        + " ON DUPLICATE KEY UPDATE balance = VALUES(balance)";
        assertThat(as(RESOURCE, 12, () -> update(upsert, 1, 101, null))).isPositive();
        assertThatThrownBy(() -> as(RESOURCE, 11, () -> update(upsert, 1, 666, null)))
                .isInstanceOf(StaleTokenException.class);
        assertThat(as(RESOURCE, 11, () -> update(upsert, 8, 800, null))).isEqualTo(1);
        assertThat(rows()).containsExactly("1:101:12", "2:200:10", "3:300:10", "5:500:10", "6:600:10", "8:800:11");
    }

    @Test
    void postgresOnlyAndStarTargetsAreFenced() throws Exception {
        setUp(SqlDialect.POSTGRESQL);
        TestDatabases.execute(raw, "CREATE TABLE " + table + "_kid () INHERITS (" + table + ")",
                "INSERT INTO " + table + "_kid (id, balance) VALUES (2, 200)");
        assertThat(as(RESOURCE, 10, () -> update("UPDATE ONLY " + table + " SET balance = ? WHERE id > ?", 1, 0)))
                .isEqualTo(1);
        assertThat(rows()).containsExactly("1:1:10", "2:200:null");
        assertThat(as(RESOURCE, 11, () -> update("UPDATE " + table + " * SET balance = balance + ?", 1)))
                .isEqualTo(2);
        assertThat(rows()).containsExactly("1:2:11", "2:201:11");
        assertThatThrownBy(() -> as(RESOURCE, 10, () -> update("UPDATE ONLY public." + table
                + " AS a SET balance = ? WHERE a.id = ?", 9, 1))).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> as(RESOURCE, 10, () -> update("DELETE FROM ONLY " + table + " WHERE id = ?", 1)))
                .isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> update("DELETE FROM ONLY " + table + " WHERE id = ?", 1))
                .isInstanceOf(FencingRefusedException.class);
        assertThat(rows()).containsExactly("1:2:11", "2:201:11");
        assertThat(as(RESOURCE, 11, () -> update("DELETE FROM ONLY " + table + " WHERE id > ?", 0))).isEqualTo(1);
        assertThat(rows()).containsExactly("2:201:11");
        assertThat(fenced.explain("UPDATE ONLY " + table + " SET balance = ?")).startsWith("UPDATE ONLY " + table);
    }

    @Test
    void postgresJsonbQuestionMarkOperatorsInTheirJdbcEscapeAreFencedAndMeanTheSame() throws Exception {
        setUp(SqlDialect.POSTGRESQL);
        TestDatabases.execute(raw, "ALTER TABLE " + table + " ADD COLUMN data JSONB",
                "UPDATE " + table + " SET data = '{\"vip\": true}'",
                "INSERT INTO " + table + " (id, balance, data) VALUES (2, 200, '{\"plain\": 1}'), (3, 300, NULL)");
        String vip = "UPDATE " + table + " SET balance = balance + ? WHERE data ?? 'vip' AND note_free(?) IS NULL";
        String any = "UPDATE " + table + " SET balance = balance + ? WHERE data ??| array['vip', 'other'] AND id < ?";
        String all = "DELETE FROM " + table + " WHERE data ??& array['plain'] AND id = ?";
        TestDatabases.execute(raw, "CREATE OR REPLACE FUNCTION note_free(v int) RETURNS int LANGUAGE sql IMMUTABLE"
                + " AS $$ SELECT NULL::int $$");
        fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence(table).build());
        assertThat(fenced.explain(vip)).contains("data ?? 'vip'").contains("current_token");
        assertThat(as(RESOURCE, 10, () -> update(vip, 1, 0))).isEqualTo(1);
        assertThat(as(RESOURCE, 10, () -> update(any, 1, 10))).isEqualTo(1);
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update(any, 1, 10))).isInstanceOf(StaleTokenException.class);
        assertThat(rows()).containsExactly("1:102:10", "2:200:null", "3:300:null");
        assertThat(as(RESOURCE, 10, () -> update(all, 2))).isEqualTo(1);
        assertThat(rows()).containsExactly("1:102:10", "3:300:null");
        // a read with the operators passes through as written
        try (Connection c = fenced.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT count(*) FROM " + table + " WHERE data ?? ? OR data ??| array['x']")) {
            ps.setString(1, "vip");
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                assertThat(rs.getInt(1)).isEqualTo(1);
            }
        }
        // ?? inside a literal or a comment is no operator (the driver leaves it too): the literal is kept as
        // written, the comment is dropped, and the statement means the same
        String literal = "UPDATE " + table + " SET balance = ? /* data ?? 'x' */ WHERE data ?? 'vip' AND 'a??b' = ?";
        assertThat(fenced.explain(literal)).contains("data ?? 'vip'").contains("'a??b' = ?").doesNotContain("'x'");
        assertThat(as(RESOURCE, 10, () -> update(literal, 5, "a??b"))).isEqualTo(1);
        assertThat(as(RESOURCE, 10, () -> update(literal, 6, "a?b"))).isEqualTo(0);
        assertThat(rows()).containsExactly("1:5:10", "3:300:null");
    }
}
