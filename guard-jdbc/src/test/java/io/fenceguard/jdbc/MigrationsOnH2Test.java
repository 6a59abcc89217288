package io.fenceguard.jdbc;

import static io.fenceguard.jdbc.TestFence.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.db.FenceguardMigrations;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * Without Spring, on a fresh H2 database (whose guard script declares fenceguard-jdbc's stale function):
 * the application's Flyway over the fenced DataSource seeds a fenced table inside {@link Unfenced},
 * then the guard migrates under its own history, and fenced writes work on the tables it created.
 */
class MigrationsOnH2Test {

    @Test
    void theApplicationsMigrationSeedsUnfencedThenTheGuardMigratesApart() throws Exception {
        JdbcDataSource raw = new JdbcDataSource();
        raw.setURL("jdbc:h2:mem:fg_mig_" + UUID.randomUUID().toString().substring(0, 8) + ";DB_CLOSE_DELAY=-1");
        FencedDataSource fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence("fg_seeded").build());
        Flyway app = Flyway.configure().dataSource(fenced).load();

        Unfenced.run(app::migrate);
        assertThat(FenceguardMigrations.migrate(FencedDataSource.unfenced(fenced))).isEqualTo(6);

        assertThat(history(raw, "flyway_schema_history")).containsExactly("1");
        assertThat(history(raw, FenceguardMigrations.HISTORY_TABLE)).containsExactly("0", "1", "2", "3", "4", "5", "6");
        String update = "UPDATE fg_seeded SET balance = ? WHERE id = 1";
        assertThat(as("account:1", 10, () -> write(fenced, update, 110))).isEqualTo(1);
        assertThatThrownBy(() -> as("account:1", 9, () -> write(fenced, update, 666)))
                .isInstanceOf(StaleTokenException.class);
        // the high-water table the guard created takes claims
        assertThat(as("account:1", 10, () -> {
            try (Connection c = fenced.getConnection()) {
                c.setAutoCommit(false);
                HighWaterMarks.claim(c);
                c.commit();
                return true;
            }
        })).isTrue();
    }

    private static int write(DataSource dataSource, String sql, long value) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setLong(1, value);
            return s.executeUpdate();
        }
    }

    private static List<String> history(DataSource dataSource, String table) throws SQLException {
        List<String> versions = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(
                "SELECT \"version\" FROM \"" + table + "\" WHERE \"version\" IS NOT NULL AND \"success\""
                        + " ORDER BY \"installed_rank\"");
             ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                versions.add(rs.getString(1));
            }
        }
        return versions;
    }
}
