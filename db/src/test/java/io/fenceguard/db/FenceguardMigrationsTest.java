package io.fenceguard.db;

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
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The guard's migrations on real PostgreSQL and MariaDB (skipped with the reason when there is none),
 * each in a schema of its own. H2's script declares a Java function of fenceguard-jdbc, so it is run by
 * fenceguard-jdbc's tests, which migrate their H2 database with {@link FenceguardMigrations}.
 */
class FenceguardMigrationsTest {

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void createsTheGuardsObjectsUnderItsOwnHistoryOnce(String kind) throws Exception {
        try (ScratchSchema schema = ScratchSchema.on(kind)) {
            DataSource db = schema.dataSource();
            assertThat(FenceguardMigrations.location(db)).isEqualTo("classpath:fenceguard/db/migration/"
                    + (kind.equals("mariadb") ? "mysql" : kind));

            int versions = kind.equals("postgresql") ? 7 : 6;
            assertThat(FenceguardMigrations.migrate(db)).isEqualTo(versions);

            assertThat(history(db, FenceguardMigrations.HISTORY_TABLE)).containsExactlyElementsOf(
                    java.util.stream.IntStream.rangeClosed(1, versions).mapToObj(v -> v + ":true").toList());
            assertThat(count(db, "fenceguard_gate")).isZero();
            assertThat(count(db, "fenceguard_http_high_water")).isZero();
            assertThat(count(db, "fenceguard_http_nonce")).isZero();
            assertThat(count(db, "fenceguard_http_idempotency")).isZero();
            assertThat(count(db, "fenceguard_outbox")).isZero();
            if (kind.equals("postgresql")) {
                // PostgreSQL empties it in crash recovery: what tells the store that unflushed nonces may be lost
                assertThat(query(db, "SELECT count(*) FROM pg_class WHERE oid = to_regclass('fenceguard_http_nonce_since') "
                        + "AND relpersistence = 'u'")).isOne();
                assertThat(count(db, "fenceguard_http_nonce_since")).isOne();
            }
            // the stale function raises the state that fenceguard-jdbc turns into StaleTokenException
            assertThatThrownBy(() -> query(db, "SELECT fenceguard_stale('t', 2, 1)"))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("40F01"));
            assertThat(FenceguardMigrations.migrate(db)).as("a second run").isZero();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void runsAfterTheApplicationsOwnFlywayWithoutAVersionCollision(String kind) throws Exception {
        try (ScratchSchema schema = ScratchSchema.on(kind)) {
            DataSource db = schema.dataSource();
            // the application's Flyway with Boot's default location: it sees only its own V1
            Flyway app = Flyway.configure().dataSource(db).locations("classpath:db/migration").load();
            assertThat(app.migrate().migrationsExecuted).isEqualTo(1);

            int versions = kind.equals("postgresql") ? 7 : 6;
            assertThat(FenceguardMigrations.migrate(db)).isEqualTo(versions);

            assertThat(history(db, "flyway_schema_history")).containsExactly("1:true");
            // the schema held the application's tables already: the guard's history starts at a baseline 0
            assertThat(history(db, FenceguardMigrations.HISTORY_TABLE)).containsExactlyElementsOf(
                    java.util.stream.IntStream.rangeClosed(0, versions).mapToObj(v -> v + ":true").toList());
            assertThat(app.validateWithResult().validationSuccessful).isTrue();
            assertThat(app.migrate().migrationsExecuted).isZero();
            assertThat(count(db, "app_accounts")).isOne();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void takesADatabaseWhoseGuardTablesAnOlderVersionCreated(String kind) throws Exception {
        try (ScratchSchema schema = ScratchSchema.on(kind)) {
            DataSource db = schema.dataSource();
            update(db, "CREATE TABLE fenceguard_gate (resource VARCHAR(255) NOT NULL PRIMARY KEY, token BIGINT NOT NULL,"
                    + " claimed_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP)");
            update(db, "INSERT INTO fenceguard_gate (resource, token) VALUES ('account:1', 7)");

            assertThat(FenceguardMigrations.migrate(db)).isEqualTo(kind.equals("postgresql") ? 7 : 6);

            assertThat(count(db, "fenceguard_gate")).as("the existing high-water rows stay").isOne();
        }
    }

    @Test
    void anUnsupportedDatabaseIsNamed() {
        assertThatThrownBy(() -> FenceguardMigrations.Dialect.ofProduct("Oracle"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'Oracle'")
                .hasMessageContaining("PostgreSQL, MariaDB/MySQL and H2");
        assertThat(FenceguardMigrations.Dialect.ofProduct("MySQL").folder).isEqualTo("mysql");
        assertThat(FenceguardMigrations.Dialect.ofProduct("MariaDB").folder).isEqualTo("mysql");
    }

    private static List<String> history(DataSource db, String table) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT version, success FROM " + table
                     + " WHERE version IS NOT NULL ORDER BY installed_rank")) {
            while (rs.next()) {
                rows.add(rs.getString(1) + ":" + rs.getBoolean(2));
            }
        }
        return rows;
    }

    private static int count(DataSource db, String table) throws SQLException {
        return (int) query(db, "SELECT count(*) FROM " + table);
    }

    private static long query(DataSource db, String sql) throws SQLException {
        try (Connection c = db.getConnection(); PreparedStatement s = c.prepareStatement(sql);
             ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void update(DataSource db, String sql) throws SQLException {
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
