package io.fenceguard.jdbc;

import static io.fenceguard.jdbc.TestFence.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.db.FenceguardTriggers;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.TestServers;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Trigger mode on the real servers: the database itself refuses writes to a fenced table that do not
 * carry the token the guard set, whatever connection they come from; the guard's own writes pass; an
 * audited maintenance scope passes and leaves its row.
 */
class TriggerModeTest {

    private static final String T = "fg_trig";
    private static final String RESOURCE = "trig";

    private JdbcEndpoint server;
    private HikariDataSource pool;

    /** A pool of one connection, so that every checkout reuses the same session. */
    private void setUp(SqlDialect dialect) throws SQLException {
        TestDatabases.of(dialect);
        server = dialect == SqlDialect.POSTGRESQL ? TestServers.postgres() : TestServers.mariadb();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(server.url());
        config.setUsername(server.user());
        config.setPassword(server.password());
        config.setMaximumPoolSize(1);
        config.setPoolName("trigger-mode");
        pool = new HikariDataSource(config);
        TestDatabases.execute(pool, "DROP TABLE IF EXISTS " + T,
                "CREATE TABLE " + T + " (id INT PRIMARY KEY, v INT NOT NULL, current_token BIGINT)",
                "INSERT INTO " + T + " VALUES (1, 100, 20), (2, 200, NULL)");
        FenceguardTriggers.install(pool, T);
    }

    private void tearDown() throws SQLException {
        FenceguardTriggers.uninstall(pool, T);
        TestDatabases.execute(pool, "DROP TABLE IF EXISTS " + T);
        pool.close();
    }

    private FencedDataSource fenced(boolean triggerMode) {
        return FencedDataSource.wrap(pool, FencingConfig.builder().fence(T).triggerMode(triggerMode).build());
    }

    @ParameterizedTest
    @EnumSource(value = SqlDialect.class, names = {"POSTGRESQL", "MARIADB"})
    void aPlainDriverConnectionIsRefusedByTheDatabase(SqlDialect dialect) throws Exception {
        setUp(dialect);
        try (Connection plain = server.connect(); Statement statement = plain.createStatement()) {
            // no guard at all: row 1 was stamped by holder 20
            assertThatThrownBy(() -> statement.executeUpdate("UPDATE " + T + " SET v = 1 WHERE id = 1"))
                    .isInstanceOf(SQLException.class)
                    .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo(FenceguardTriggers.NO_TOKEN_STATE))
                    .hasMessageContaining("without a fencing token");
            assertThatThrownBy(() -> statement.executeUpdate("UPDATE " + T + " SET v = 1, current_token = 99"))
                    .isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> statement.executeUpdate("DELETE FROM " + T))
                    .isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> statement.executeUpdate("INSERT INTO " + T + " VALUES (3, 300, NULL)"))
                    .isInstanceOf(SQLException.class);
            // an application that sets an older token itself still meets the row's newer one
            setToken(plain, dialect, 10);
            assertThatThrownBy(() -> statement.executeUpdate("UPDATE " + T + " SET v = 1, current_token = 10 WHERE id = 1"))
                    .isInstanceOf(SQLException.class)
                    .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("40F01"))
                    .hasMessageContaining("stale fencing token 10");
            // the token set, but the row left with another one
            assertThatThrownBy(() -> statement.executeUpdate("UPDATE " + T + " SET v = 1 WHERE id = 2"))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("not the token");
            if (dialect == SqlDialect.POSTGRESQL) {
                assertThatThrownBy(() -> statement.execute("TRUNCATE " + T)).isInstanceOf(SQLException.class)
                        .hasMessageContaining("TRUNCATE");
            }
            assertThat(rows()).containsExactly("1:100:20", "2:200:null");
        } finally {
            tearDown();
        }
    }

    @ParameterizedTest
    @EnumSource(value = SqlDialect.class, names = {"POSTGRESQL", "MARIADB"})
    void guardedWritesWithTheCurrentTokenPassAndLeaveNoTokenBehind(SqlDialect dialect) throws Exception {
        setUp(dialect);
        try {
            FencedDataSource guarded = fenced(true);
            assertThat(as(RESOURCE, 20, () -> update(guarded, "UPDATE " + T + " SET v = v + 1 WHERE id = ?", 1)))
                    .isEqualTo(1);
            assertThat(as(RESOURCE, 25, () -> update(guarded, "UPDATE " + T + " SET v = v + 1", null))).isEqualTo(2);
            assertThat(as(RESOURCE, 25, () -> update(guarded, "INSERT INTO " + T + " (id, v) VALUES (?, 300)", 3)))
                    .isEqualTo(1);
            assertThat(as(RESOURCE, 26, () -> update(guarded, "DELETE FROM " + T + " WHERE id = ?", 3))).isEqualTo(1);
            assertThatThrownBy(() -> as(RESOURCE, 24, () -> update(guarded, "UPDATE " + T + " SET v = 0 WHERE id = ?", 1)))
                    .isInstanceOf(StaleTokenException.class);
            // a transaction too, with a rollback between (PostgreSQL undoes a SET on rollback)
            try (Connection c = guarded.getConnection()) {
                c.setAutoCommit(false);
                as(RESOURCE, 27, () -> update(c, "UPDATE " + T + " SET v = v + 1 WHERE id = ?", 1));
                c.rollback();
                assertThat(as(RESOURCE, 27, () -> update(c, "UPDATE " + T + " SET v = v + 10 WHERE id = ?", 2)))
                        .isEqualTo(1);
                c.commit();
                // unfenced work through the guard carries no token: the database refuses it
                assertThatThrownBy(() -> Unfenced.call(() -> update(c, "UPDATE " + T + " SET v = 0 WHERE id = ?", 2)))
                        .isInstanceOf(SQLException.class)
                        .hasMessageContaining("without a fencing token");
                c.rollback();
            }
            assertThat(rows()).containsExactly("1:102:25", "2:211:27");
            // the same physical session, handed out again without the guard, holds no token
            try (Connection raw = pool.getConnection(); Statement statement = raw.createStatement()) {
                assertThatThrownBy(() -> statement.executeUpdate("UPDATE " + T + " SET v = 0, current_token = 27"
                        + " WHERE id = 2")).isInstanceOf(SQLException.class).hasMessageContaining("without a fencing token");
            }
            // the guard without trigger mode sets no token: the database refuses its writes
            FencedDataSource withoutTriggerMode = fenced(false);
            assertThatThrownBy(() -> as(RESOURCE, 30, () -> update(withoutTriggerMode,
                    "UPDATE " + T + " SET v = 0 WHERE id = ?", 1)))
                    .isInstanceOf(SQLException.class).hasMessageContaining("without a fencing token");
            assertThat(rows()).containsExactly("1:102:25", "2:211:27");
        } finally {
            tearDown();
        }
    }

    @ParameterizedTest
    @EnumSource(value = SqlDialect.class, names = {"POSTGRESQL", "MARIADB"})
    void aMaintenanceScopePassesAndIsAudited(SqlDialect dialect) throws Exception {
        setUp(dialect);
        try (Connection plain = server.connect()) {
            TestDatabases.execute(pool, "DELETE FROM " + FenceguardTriggers.MAINTENANCE_LOG);
            plain.setAutoCommit(false);
            long id;
            try (FenceguardTriggers.Maintenance scope = FenceguardTriggers.maintenance(plain, "repair row 1, ticket 42");
                 Statement statement = plain.createStatement()) {
                id = scope.id();
                assertThat(statement.executeUpdate("UPDATE " + T + " SET v = 1, current_token = NULL WHERE id = 1"))
                        .isEqualTo(1);
                assertThat(statement.executeUpdate("DELETE FROM " + T + " WHERE id = 2")).isEqualTo(1);
            }
            plain.commit();
            assertThat(rows()).containsExactly("1:1:null");
            try (Statement statement = plain.createStatement();
                 ResultSet audit = statement.executeQuery("SELECT id, reason, db_user FROM "
                         + FenceguardTriggers.MAINTENANCE_LOG)) {
                assertThat(audit.next()).isTrue();
                assertThat(audit.getLong(1)).isEqualTo(id);
                assertThat(audit.getString(2)).isEqualTo("repair row 1, ticket 42");
                assertThat(audit.getString(3)).isNotBlank();
                assertThat(audit.next()).isFalse();
            }
            plain.commit();
            // the scope is over: refused again; a forged scope variable without its audit row is refused too
            try (Statement statement = plain.createStatement()) {
                assertThatThrownBy(() -> statement.executeUpdate("UPDATE " + T + " SET v = 2 WHERE id = 1"))
                        .isInstanceOf(SQLException.class);
                plain.rollback();
                statement.execute(dialect == SqlDialect.POSTGRESQL
                        ? "SELECT set_config('fenceguard.maintenance', '" + id + "', false)"
                        : "SET @fenceguard_maintenance = " + id);
                assertThatThrownBy(() -> statement.executeUpdate("UPDATE " + T + " SET v = 2 WHERE id = 1"))
                        .isInstanceOf(SQLException.class);
                plain.rollback();
                if (dialect == SqlDialect.POSTGRESQL) {
                    // a temporary table of the same name, first on the session's search_path, forges nothing
                    statement.execute("CREATE TEMP TABLE " + FenceguardTriggers.MAINTENANCE_LOG
                            + " AS SELECT " + id + "::BIGINT AS id, txid_current() AS txid");
                    statement.execute("SELECT set_config('fenceguard.maintenance', '" + id + "', true)");
                    assertThatThrownBy(() -> statement.executeUpdate("UPDATE " + T + " SET v = 2 WHERE id = 1"))
                            .isInstanceOf(SQLException.class).hasMessageContaining("without a fencing token");
                    plain.rollback();
                }
            }
            assertThatThrownBy(() -> FenceguardTriggers.maintenance(plain, " ")).isInstanceOf(IllegalArgumentException.class);
            assertThat(rows()).containsExactly("1:1:null");
        } finally {
            tearDown();
        }
    }

    private static void setToken(Connection connection, SqlDialect dialect, long token) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(dialect == SqlDialect.POSTGRESQL
                    ? "SELECT set_config('fenceguard.token', '" + token + "', false)"
                    : "SET @fenceguard_token = " + token);
        }
    }

    private static int update(javax.sql.DataSource dataSource, String sql, Integer id) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return update(c, sql, id);
        }
    }

    private static int update(Connection c, String sql, Integer id) throws SQLException {
        try (PreparedStatement statement = c.prepareStatement(sql)) {
            if (id != null) {
                statement.setInt(1, id);
            }
            return statement.executeUpdate();
        }
    }

    private List<String> rows() throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = server.connect(); Statement statement = c.createStatement();
             ResultSet rs = statement.executeQuery("SELECT id, v, current_token FROM " + T + " ORDER BY id")) {
            while (rs.next()) {
                rows.add(rs.getInt(1) + ":" + rs.getInt(2) + ":" + rs.getObject(3));
            }
        }
        return rows;
    }
}
