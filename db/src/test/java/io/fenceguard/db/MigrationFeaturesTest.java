package io.fenceguard.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.db.FenceguardMigrations.Feature;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Only the tables of the features asked for, on real PostgreSQL and MariaDB: row fencing alone creates no
 * admission or outbox table, a feature taken on later adds its own (out of order in the one history), and a
 * database that the guard migrated whole before the scripts were grouped keeps its history and its checksums.
 */
class MigrationFeaturesTest {

    private static final List<String> ADMISSION_TABLES = List.of("fenceguard_http_high_water", "fenceguard_http_nonce",
            "fenceguard_http_idempotency");

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void rowFencingAloneCreatesNoAdmissionOrOutboxTableAndLaterFeaturesAddTheirs(String kind) throws Exception {
        try (ScratchSchema schema = ScratchSchema.on(kind)) {
            DataSource db = schema.dataSource();
            boolean postgres = kind.equals("postgresql");

            assertThat(FenceguardMigrations.migrate(db, EnumSet.of(Feature.SQL_FENCING))).isOne();
            assertThat(tables(db)).containsExactly("fenceguard_gate", FenceguardMigrations.HISTORY_TABLE);
            assertThat(history(db)).containsExactly("1");

            // HTTP admission switched on later: its tables, and nothing else
            assertThat(FenceguardMigrations.migrate(db, EnumSet.of(Feature.SQL_FENCING, Feature.ADMISSION)))
                    .isEqualTo(postgres ? 5 : 4);
            List<String> withAdmission = new ArrayList<>(List.of("fenceguard_gate", FenceguardMigrations.HISTORY_TABLE));
            withAdmission.addAll(ADMISSION_TABLES);
            if (postgres) {
                withAdmission.add("fenceguard_http_nonce_since");
            }
            assertThat(tables(db)).containsExactlyInAnyOrderElementsOf(withAdmission);
            assertThat(history(db)).containsExactlyElementsOf(postgres ? List.of("1", "2", "3", "4", "6", "7")
                    : List.of("1", "2", "3", "4", "6"));

            // the outbox after that: V5 lies below the versions applied, and is applied all the same
            assertThat(FenceguardMigrations.migrate(db, EnumSet.allOf(Feature.class))).isOne();
            assertThat(tables(db)).contains("fenceguard_outbox");
            assertThat(history(db)).last().isEqualTo("5");

            // back to row fencing alone: the other features' applied scripts are no error, and nothing is dropped
            assertThat(FenceguardMigrations.migrate(db, EnumSet.of(Feature.SQL_FENCING))).isZero();
            assertThat(tables(db)).contains("fenceguard_outbox", "fenceguard_http_high_water");
            assertThat(FenceguardMigrations.migrate(db)).as("every feature, all applied").isZero();
        }
    }

    /**
     * A schema migrated before the scripts were grouped: one Flyway run over the whole dialect folder, as the
     * guard ran it then. Its history keeps every version with the checksums recorded then (the scripts moved
     * into their feature's folder unchanged), and a run for row fencing alone starts on it without a change.
     */
    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void aSchemaMigratedWholeBeforeStillStartsWithItsChecksums(String kind) throws Exception {
        try (ScratchSchema schema = ScratchSchema.on(kind)) {
            DataSource db = schema.dataSource();
            int applied = Flyway.configure().dataSource(db).locations(FenceguardMigrations.location(db))
                    .table(FenceguardMigrations.HISTORY_TABLE).load().migrate().migrationsExecuted;
            assertThat(applied).isEqualTo(kind.equals("postgresql") ? 7 : 6);
            List<String> before = checksums(db);

            assertThat(FenceguardMigrations.migrate(db, EnumSet.of(Feature.SQL_FENCING))).isZero();
            assertThat(FenceguardMigrations.migrate(db)).isZero();

            assertThat(checksums(db)).isEqualTo(before).containsExactlyElementsOf(RELEASED_CHECKSUMS.get(kind));
            assertThat(tables(db)).contains("fenceguard_gate", "fenceguard_outbox", "fenceguard_http_idempotency");
        }
    }

    /**
     * version:checksum of the scripts as they were before being grouped (Flyway's CRC32 of their lines, computed from
     * the files at the commit before), per dialect: what the histories of existing databases hold.
     */
    private static final java.util.Map<String, List<String>> RELEASED_CHECKSUMS = java.util.Map.of(
            "postgresql", List.of("1:-1109762479", "2:-1725622694", "3:1884950470", "4:770412405", "5:-1340968095",
                    "6:1359469155", "7:1800684539"),
            "mariadb", List.of("1:-1130965492", "2:-1725622694", "3:1937798056", "4:2074374384", "5:1840762083",
                    "6:-1857157608"));

    @Test
    void noFeatureRunsNothing() throws Exception {
        try (ScratchSchema schema = ScratchSchema.on("postgresql")) {
            assertThat(FenceguardMigrations.migrate(schema.dataSource(), Set.of())).isZero();
            assertThat(tables(schema.dataSource())).isEmpty();
        }
    }

    @Test
    void featuresAreNamedByTheirFolder() {
        assertThat(Feature.named("sql-fencing")).isEqualTo(Feature.SQL_FENCING);
        assertThat(Feature.named("ADMISSION")).isEqualTo(Feature.ADMISSION);
        assertThat(Feature.named(" outbox ")).isEqualTo(Feature.OUTBOX);
        assertThatThrownBy(() -> Feature.named("http"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'http'")
                .hasMessageContaining("[sql-fencing, admission, outbox]");
    }

    /** The guard's tables in the scratch schema (PostgreSQL) or database (MariaDB). */
    private static List<String> tables(DataSource db) throws SQLException {
        List<String> tables = new ArrayList<>();
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT table_name FROM information_schema.tables WHERE table_schema = "
                     + (c.getMetaData().getDatabaseProductName().contains("PostgreSQL") ? "current_schema()" : "DATABASE()")
                     + " AND table_name LIKE 'fenceguard%' ORDER BY table_name")) {
            while (rs.next()) {
                tables.add(rs.getString(1));
            }
        }
        return tables;
    }

    private static List<String> history(DataSource db) throws SQLException {
        List<String> versions = new ArrayList<>();
        for (String row : checksums(db)) {
            versions.add(row.substring(0, row.indexOf(':')));
        }
        return versions;
    }

    /** version:checksum of every applied script, in the order applied. */
    private static List<String> checksums(DataSource db) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT version, checksum FROM " + FenceguardMigrations.HISTORY_TABLE
                     + " WHERE version IS NOT NULL AND version <> '0' AND success ORDER BY installed_rank")) {
            while (rs.next()) {
                rows.add(rs.getString(1) + ":" + rs.getInt(2));
            }
        }
        return rows;
    }
}
