package io.fenceguard.spring.boot.autoconfigure.db;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.FencedEndpoint;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.db.FenceguardMigrations.Feature;
import io.fenceguard.spring.boot.autoconfigure.http.FenceguardHttpAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.jdbc.FenceguardJdbcAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.jdbc.ScratchDatabase;
import io.fenceguard.spring.schema.FenceguardMigrationInitializer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code fenceguard.db.features}: by default the tables of the features the application uses, on real PostgreSQL
 * and MariaDB. A row-fencing application gets none of the admission or outbox tables; the same database started
 * again with HTTP admission on a JDBC store gets the admission tables; a list or {@code all} chooses by hand; a
 * value that is not a choice stops start-up with the values there are and creates nothing.
 */
class MigratedFeaturesTest {

    private static final String KEY = "dGVzdC1rZXktQS0wMTIzNDU2Nzg5MDEyMzQ1Njc4OTAx";
    private ScratchDatabase db;

    @RestController
    static class FencedController {
        @FencedEndpoint(resource = "account:{id}")
        @PutMapping("/accounts/{id}")
        String put(@PathVariable String id) {
            return id;
        }
    }

    private WebApplicationContextRunner runner() {
        return new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        FenceguardJdbcAutoConfiguration.class, FenceguardDbAutoConfiguration.class,
                        FenceguardHttpAutoConfiguration.class))
                .withPropertyValues(db.datasourceProperties())
                .withPropertyValues("fenceguard.jdbc.verify-catalog=false");
    }

    @AfterEach
    void drop() {
        if (db != null) {
            db.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void rowFencingCreatesNoAdmissionOrOutboxTablesAndHttpAdmissionLaterAddsItsOwn(String kind) throws Exception {
        db = ScratchDatabase.of(kind);
        runner().run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(FenceguardMigrationInitializer.class).features())
                    .containsExactly(Feature.SQL_FENCING);
            assertThat(guardTables()).containsExactly("fenceguard_gate", "fenceguard_schema_history");
        });
        // started again with a fenced endpoint whose marks are kept in the database
        runner().withUserConfiguration(FencedController.class)
                .withPropertyValues("fenceguard.http.signing.keys.k1=" + KEY, "fenceguard.http.store.type=jdbc")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(FenceguardMigrationInitializer.class).features())
                            .containsExactlyInAnyOrder(Feature.SQL_FENCING, Feature.ADMISSION);
                    assertThat(guardTables()).contains("fenceguard_gate", "fenceguard_http_high_water",
                            "fenceguard_http_nonce", "fenceguard_http_idempotency").doesNotContain("fenceguard_outbox");
                });
        // the same endpoint with its marks in memory needs no table
        runner().withUserConfiguration(FencedController.class)
                .withPropertyValues("fenceguard.http.signing.keys.k1=" + KEY, "fenceguard.jdbc.enabled=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(FenceguardMigrationInitializer.class).features()).isEmpty();
                });
    }

    /**
     * A schema the guard migrated whole before its scripts were grouped by feature (one Flyway run over the dialect's
     * folder, every table): a row-fencing application starts on it, applies nothing and drops nothing.
     */
    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void aSchemaTheGuardMigratedWholeBeforeStillStarts(String kind) throws Exception {
        db = ScratchDatabase.of(kind);
        int applied = Flyway.configure().dataSource(db.physical()).locations(FenceguardMigrations.location(db.physical()))
                .table(FenceguardMigrations.HISTORY_TABLE).load().migrate().migrationsExecuted;
        assertThat(applied).isEqualTo(kind.equals("postgresql") ? 7 : 6);
        List<String> before = guardTables();
        assertThat(before).contains("fenceguard_http_high_water", "fenceguard_outbox");
        runner().run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(FenceguardMigrationInitializer.class).features())
                    .containsExactly(Feature.SQL_FENCING);
            assertThat(guardTables()).isEqualTo(before);
        });
    }

    @Test
    void aListOrAllChoosesByHand() throws Exception {
        db = ScratchDatabase.of("postgresql");
        runner().withPropertyValues("fenceguard.db.features=auto,outbox").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(guardTables()).containsExactly("fenceguard_gate", "fenceguard_outbox",
                    "fenceguard_schema_history");
        });
        runner().withPropertyValues("fenceguard.db.features=all").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(guardTables()).contains("fenceguard_http_high_water", "fenceguard_http_nonce_since");
        });
    }

    @Test
    void aValueThatIsNotAChoiceStopsStartUpAndCreatesNothing() throws Exception {
        db = ScratchDatabase.of("postgresql");
        runner().withPropertyValues("fenceguard.db.features=sql-fencing,http").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                    .hasMessageContaining("fenceguard.db.features=sql-fencing,http")
                    .hasMessageContaining("'http'")
                    .hasMessageContaining("auto, all, none, or a list of sql-fencing, admission, outbox");
        });
        runner().withPropertyValues("fenceguard.db.features=none,outbox").run(context ->
                assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("none stands alone"));
        assertThat(guardTables()).isEmpty();
        runner().withPropertyValues("fenceguard.db.features=none").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(guardTables()).isEmpty();
        });
    }

    /** The guard's tables in the scratch schema (PostgreSQL) or database (MariaDB). */
    private List<String> guardTables() throws SQLException {
        List<String> tables = new ArrayList<>();
        try (Connection c = db.physical().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT table_name FROM information_schema.tables WHERE table_schema = "
                     + (db.kind().equals("postgresql") ? "current_schema()" : "DATABASE()")
                     + " AND table_name LIKE 'fenceguard%' ORDER BY table_name")) {
            while (rs.next()) {
                tables.add(rs.getString(1));
            }
        }
        return tables;
    }
}
