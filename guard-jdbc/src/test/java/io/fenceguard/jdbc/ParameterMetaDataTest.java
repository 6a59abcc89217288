package io.fenceguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/** Parameter metadata answers in the application's indexes, so frameworks bind nulls with the right type. */
class ParameterMetaDataTest {

    private static final String TABLE = "fg_param_meta";

    @Test
    void metadataOfARewrittenStatementUsesTheApplicationsIndexes() throws Exception {
        DataSource raw = TestDatabases.of(SqlDialect.POSTGRESQL);
        TestDatabases.execute(raw, "DROP TABLE IF EXISTS " + TABLE, "CREATE TABLE " + TABLE
                + " (id INT PRIMARY KEY, note VARCHAR(20), amount BIGINT, flag BOOLEAN, current_token BIGINT)",
                "INSERT INTO " + TABLE + " (id, note, amount, flag) VALUES (1, 'a', 5, true)");
        DataSource fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence(TABLE).build());
        // The token's parameters land between the SET list and the WHERE clause.
        String sql = "UPDATE " + TABLE + " SET note = ?, amount = ? WHERE id = ? AND flag IS DISTINCT FROM ? AND amount IS DISTINCT FROM ?";

        TestFence.as("account:1", 10, () -> {
            try (Connection c = fenced.getConnection(); PreparedStatement s = c.prepareStatement(sql);
                 Connection plain = raw.getConnection(); PreparedStatement unfenced = plain.prepareStatement(sql)) {
                ParameterMetaData expected = unfenced.getParameterMetaData();
                ParameterMetaData seen = s.getParameterMetaData();
                assertThat(seen.getParameterCount()).isEqualTo(5).isEqualTo(expected.getParameterCount());
                for (int i = 1; i <= 5; i++) {
                    assertThat(seen.getParameterType(i)).as("type of parameter %d", i)
                            .isEqualTo(expected.getParameterType(i));
                }
                assertThat(seen.getParameterType(2)).isEqualTo(Types.BIGINT);
                assertThat(seen.getParameterType(4)).isIn(Types.BIT, Types.BOOLEAN);
                assertThatThrownBy(() -> seen.getParameterType(6)).isInstanceOf(SQLException.class)
                        .hasMessageContaining("out of range");
            }
            // Spring asks the metadata for the type of each null it binds.
            int updated = new JdbcTemplate(fenced).update(sql, null, null, 1, null, null);
            assertThat(updated).isEqualTo(1);
            return null;
        });
        try (Connection c = raw.getConnection(); PreparedStatement s = c.prepareStatement(
                "SELECT note, amount, current_token FROM " + TABLE + " WHERE id = 1");
             var rs = s.executeQuery()) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isNull();
            assertThat(rs.getObject(2)).isNull();
            assertThat(rs.getLong(3)).isEqualTo(10L);
        }
    }
}
