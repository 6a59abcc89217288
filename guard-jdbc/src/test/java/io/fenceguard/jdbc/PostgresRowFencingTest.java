package io.fenceguard.jdbc;

import static io.fenceguard.jdbc.TestFence.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
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
        FencedDataSource quoted = FencedDataSource.wrap(raw, FencingConfig.builder().fence("public.Fg_Quoted")
                .fenceSource(TestFence.source()).build());
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
}
