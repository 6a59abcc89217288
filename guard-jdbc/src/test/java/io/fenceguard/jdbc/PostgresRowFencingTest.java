package io.fenceguard.jdbc;

import static io.fenceguard.jdbc.TestFence.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PostgresRowFencingTest extends RowFencingContract {

    @Override
    SqlDialect dialect() {
        return SqlDialect.POSTGRESQL;
    }

    @Override
    String joinedUpdate() {
        return "UPDATE " + table + " a SET balance = a.balance + ? FROM " + users + " u"
                + " WHERE a.owner = u.id AND u.name = ?";
    }

    @Override
    String quoted(String identifier) {
        return "\"" + identifier + "\"";
    }

    @Test
    void returningAndOnConflictDoUpdate() throws Exception {
        Integer returned = as(RESOURCE, 10, () -> {
            try (Connection c = fenced.getConnection(); PreparedStatement ps = c.prepareStatement(
                    "UPDATE " + table + " AS x SET balance = ? WHERE x.id = ? RETURNING x.balance + ?")) {
                ps.setInt(1, 40);
                ps.setInt(2, 1);
                ps.setInt(3, 2);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getInt(1);
                }
            }
        });
        assertThat(returned).isEqualTo(42);
        String upsert = "INSERT INTO " + table + " AS t (id, owner, balance) VALUES (?, 1, ?)"
                + " ON CONFLICT (id) DO UPDATE SET balance = EXCLUDED.balance WHERE t.balance < ?";
        assertThat(as(RESOURCE, 10, () -> update(upsert, 1, 50, 1000))).isEqualTo(1);
        assertThat(as(RESOURCE, 4, () -> update(upsert, 9, 90, 1000))).isEqualTo(1);
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update(upsert, 1, 60, 1000)))
                .isInstanceOf(StaleTokenException.class);
        // a conflicting row the WHERE of DO UPDATE filters out is not written and not an error
        assertThat(as(RESOURCE, 9, () -> update(upsert, 1, 60, 10))).isZero();
        assertThat(rows()).contains("1:50:10", "9:90:4");
    }

    @Test
    void quotedIdentifiersAndSchemaQualifiedNames() throws Exception {
        TestDatabases.execute(raw, "DROP TABLE IF EXISTS public.\"Fg_Quoted\"",
                "CREATE TABLE public.\"Fg_Quoted\" (\"Id\" INT PRIMARY KEY, \"Value\" TEXT, current_token BIGINT)",
                "INSERT INTO public.\"Fg_Quoted\" VALUES (1, 'a', NULL)");
        // unquoted, the name folds to public.fg_quoted, which does not exist: the first connection says so
        FencedDataSource unquoted = FencedDataSource.wrap(raw, FencingConfig.builder().fence("public.Fg_Quoted").build());
        assertThatThrownBy(unquoted::verify).isInstanceOf(FencingConfigurationException.class)
                .hasMessageContaining("did you mean public.\"Fg_Quoted\"");
        FencedDataSource quoted = FencedDataSource.wrap(raw, FencingConfig.builder().fence("public.\"Fg_Quoted\"").build());
        String sql = "UPDATE public.\"Fg_Quoted\" SET \"Value\" = ? WHERE \"Id\" = ?";
        TestFence.SqlWork<Integer> write = () -> {
            try (Connection c = quoted.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setString(1, "b");
                ps.setInt(2, 1);
                return ps.executeUpdate();
            }
        };
        assertThat(as(RESOURCE, 3, write)).isEqualTo(1);
        assertThatThrownBy(() -> as(RESOURCE, 2, write)).isInstanceOf(StaleTokenException.class);
    }

    private List<Integer> query(String sql, Object... params) throws SQLException {
        try (Connection c = fenced.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            List<Integer> values = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    values.add(rs.getInt(1));
                }
            }
            return values;
        }
    }

    @Test
    void returningWithParametersOnUpdateDeleteAndInsert() throws Exception {
        assertThat(as(RESOURCE, 10, () -> query("INSERT INTO " + table + " (id, owner, balance) VALUES (?, ?, ?)"
                + " RETURNING id * ?", 4, 1, 400, 10))).containsExactly(40);
        assertThat(as(RESOURCE, 10, () -> query("UPDATE " + table + " SET balance = balance + ? WHERE owner = ?"
                + " RETURNING balance - ?", 1, 2, 1))).containsExactly(300);
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> query("UPDATE " + table + " SET balance = ? WHERE id = ?"
                + " RETURNING id + ?", 0, 4, 0))).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> query("DELETE FROM " + table + " WHERE owner = ?"
                + " RETURNING id + ?", 1, 0))).isInstanceOf(StaleTokenException.class);
        assertThat(rows()).containsExactly("1:100:null", "2:200:null", "3:301:10", "4:400:10");
        assertThat(as(RESOURCE, 9, () -> query("DELETE FROM " + table + " d WHERE d.owner = ? AND d.id < ?"
                + " RETURNING d.id * ?", 1, 3, 100))).containsExactlyInAnyOrder(100, 200);
        assertThat(rows()).containsExactly("3:301:10", "4:400:10");
    }

    @Test
    void cteWithParametersBeforeAndAfterTheToken() throws Exception {
        String cte = "WITH c AS (SELECT id FROM " + users + " WHERE name = ?) UPDATE " + table
                + " SET balance = ? WHERE owner IN (SELECT id FROM c) OR id = ?";
        assertThat(as(RESOURCE, 10, () -> update(cte, "bob", 7, 1))).isEqualTo(2);
        assertThat(rows()).containsExactly("1:7:10", "2:200:null", "3:7:10");
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update(cte, "bob", 8, 2)))
                .isInstanceOf(StaleTokenException.class);
        assertThat(as(RESOURCE, 9, () -> update(cte, "nobody", 9, 2))).isEqualTo(1);
        String cteDelete = "WITH c AS (SELECT id FROM " + users + " WHERE name = ?) DELETE FROM " + table
                + " WHERE owner IN (SELECT id FROM c) AND balance < ?";
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update(cteDelete, "ann", 100)))
                .isInstanceOf(StaleTokenException.class);
        assertThat(as(RESOURCE, 10, () -> update(cteDelete, "ann", 100))).isEqualTo(2);
        assertThat(rows()).containsExactly("3:7:10");
    }

    @Test
    void multiColumnSetAndSubSelectOffsetLimitParameters() throws Exception {
        String multi = "UPDATE " + table + " AS \"Ä\" SET (balance, note) = (?, ?) WHERE \"Ä\".id = ?";
        assertThat(as(RESOURCE, 10, () -> update(multi, 111, "n", 1))).isEqualTo(1);
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update(multi, 99, "old", 1)))
                .isInstanceOf(StaleTokenException.class);
        assertThat(new org.springframework.jdbc.core.JdbcTemplate(raw).queryForObject(
                "SELECT note FROM " + table + " WHERE id = 1", String.class)).isEqualTo("n");
        // OFFSET 1 LIMIT 5 picks row 2 of owner 1; swapped values (OFFSET 5 LIMIT 1) would pick nothing
        String paged = "UPDATE " + table + " SET balance = ? WHERE id IN (SELECT s.id FROM " + table
                + " s WHERE s.owner = ? ORDER BY s.id OFFSET ? LIMIT ?)";
        assertThat(as(RESOURCE, 10, () -> update(paged, 2, 1, 1, 5))).isEqualTo(1);
        assertThat(rows()).containsExactly("1:111:10", "2:2:10", "3:300:null");
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update(paged, 3, 1, 1, 5)))
                .isInstanceOf(StaleTokenException.class);
        assertThat(rows()).containsExactly("1:111:10", "2:2:10", "3:300:null");
    }
}
