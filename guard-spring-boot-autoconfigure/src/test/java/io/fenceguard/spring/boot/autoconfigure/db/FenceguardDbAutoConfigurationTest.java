package io.fenceguard.spring.boot.autoconfigure.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.spring.boot.autoconfigure.jdbc.FencedWrites;
import io.fenceguard.spring.boot.autoconfigure.jdbc.FenceguardJdbcAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.jdbc.Metadata;
import io.fenceguard.spring.boot.autoconfigure.jdbc.ScratchDatabase;
import io.fenceguard.spring.schema.FenceguardMigrationInitializer;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfigurationException;
import io.fenceguard.jdbc.FencingRefusedException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.LazyConnectionDataSourceProxy;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A Boot application with its own Flyway migration in Boot's default location ({@code V1__} creates
 * and seeds the fenced table fg_acc) and the guard: both migrate, under their own history tables, no
 * version collides, the seed runs unfenced, and the application's writes are fenced afterwards. On
 * real PostgreSQL and MariaDB (skipped with the reason where there is none) and H2.
 */
class FenceguardDbAutoConfigurationTest {

    static final String[] KINDS = ScratchDatabase.KINDS;
    private ScratchDatabase db;

    private ApplicationContextRunner runner(String kind) throws SQLException {
        db = ScratchDatabase.of(kind);
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
                        FlywayAutoConfiguration.class, FenceguardJdbcAutoConfiguration.class,
                        FenceguardDbAutoConfiguration.class))
                .withPropertyValues(db.datasourceProperties())
                .withPropertyValues("fenceguard.jdbc.tables=" + FencedWrites.TABLE);
    }

    @AfterEach
    void drop() {
        if (db != null) {
            db.close();
        }
    }

    @ParameterizedTest
    @FieldSource("KINDS")
    void theApplicationsMigrationAndTheGuardsBothRunApartAndTheSeedRunsUnfenced(String kind) throws Exception {
        runner(kind).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(FencedWrites.row(db)).as("seeded by the application's V1").isEqualTo("100@0");
            assertThat(history("flyway_schema_history")).containsExactly("1:true");
            // the application's table was there first: the guard's history starts at a baseline 0; row fencing
            // alone needs the stale function and the high-water table (V1), none of the admission or outbox tables
            assertThat(history(FenceguardMigrations.HISTORY_TABLE)).containsExactly("0:true", "1:true");
            assertThat(count("fenceguard_gate")).isZero();
            assertThatThrownBy(() -> count("fenceguard_http_high_water")).isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> count("fenceguard_outbox")).isInstanceOf(SQLException.class);

            DataSource dataSource = context.getBean(DataSource.class);
            assertThat(dataSource).isInstanceOf(FencedDataSource.class);
            assertThat(((FencedDataSource) dataSource).target()).isInstanceOf(HikariDataSource.class);
            assertInitializationOrder(context);
            FencedWrites.assertJdbcTemplateFencedOnce(context.getBean(JdbcTemplate.class),
                    new TransactionTemplate(context.getBean(PlatformTransactionManager.class)), db);
        });
    }

    @ParameterizedTest
    @FieldSource("KINDS")
    void bootsLazyConnectionFetchKeepsItsProxyOutsideTheFence(String kind) throws Exception {
        runner(kind).withPropertyValues("spring.datasource.connection-fetch=lazy").run(context -> {
            assertThat(context).hasNotFailed();
            DataSource dataSource = context.getBean(DataSource.class);
            assertThat(dataSource).isInstanceOf(LazyConnectionDataSourceProxy.class);
            assertThat(((LazyConnectionDataSourceProxy) dataSource).getTargetDataSource())
                    .isInstanceOf(FencedDataSource.class);
            assertThat(history(FenceguardMigrations.HISTORY_TABLE)).containsExactly("0:true", "1:true");
            FencedWrites.assertJdbcTemplateFencedOnce(context.getBean(JdbcTemplate.class),
                    new TransactionTemplate(context.getBean(PlatformTransactionManager.class)), db);
        });
    }

    @ParameterizedTest
    @FieldSource("KINDS")
    void withoutTheApplicationsFlywayTheGuardMigratesAlone(String kind) throws Exception {
        // Without the application's migrations its fenced table is missing: the start-up check would stop there.
        runner(kind).withPropertyValues("spring.flyway.enabled=false", "fenceguard.jdbc.verify-catalog=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(history(FenceguardMigrations.HISTORY_TABLE)).containsExactly("1:true");
            assertThatThrownBy(() -> count(FencedWrites.TABLE)).isInstanceOf(SQLException.class);
        });
    }

    @Test
    void theGuardsMigrationCanBeSwitchedOff() throws Exception {
        runner("h2").withPropertyValues("fenceguard.db.migrate=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(FenceguardMigrationInitializer.class);
            assertThat(FencedWrites.row(db)).isEqualTo("100@0");
            assertThatThrownBy(() -> count(FenceguardMigrations.HISTORY_TABLE)).isInstanceOf(SQLException.class);
        });
    }

    @Test
    void aSeedIntoAFencedTableIsRefusedWhenTheApplicationsMigrationsAreFenced() throws Exception {
        // fenced migrations get a fenced connection, whose catalog check fails before the migration
        // could create the table; with the check off, the seed itself is refused for want of a lease
        runner("h2").withPropertyValues("fenceguard.jdbc.unfenced-migrations=false").run(context -> {
            assertThat(context).hasFailed();
            assertThat(causeOfType(context.getStartupFailure(), FencingConfigurationException.class))
                    .as("a FencingConfigurationException in the cause chain").isNotNull()
                    .hasMessageContaining("fg_acc does not exist");
        });
        runner("h2").withPropertyValues("fenceguard.jdbc.unfenced-migrations=false",
                "fenceguard.jdbc.verify-catalog=false").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("NO_LEASE")
                    .hasMessageContaining("INSERT INTO fg_acc");
            assertThat(causeOfType(context.getStartupFailure(), FencingRefusedException.class))
                    .as("a FencingRefusedException in the cause chain").isNotNull();
        });
    }

    private static Throwable causeOfType(Throwable failure, Class<? extends Throwable> type) {
        Throwable cause = failure;
        while (cause != null && !type.isInstance(cause)) {
            cause = cause.getCause();
        }
        return cause;
    }

    @Test
    void everyPropertyHasADescriptionAndADefault() throws Exception {
        Map<String, Map<String, Object>> properties = Metadata.properties("fenceguard.db.");
        assertThat(properties).containsOnlyKeys("fenceguard.db.migrate", "fenceguard.db.triggers",
                "fenceguard.db.features");
        assertThat(properties.get("fenceguard.db.features").get("defaultValue")).isEqualTo(List.of("auto"));
        assertThat((String) properties.get("fenceguard.db.features").get("description"))
                .contains("auto", "all", "none", "sql-fencing", "admission", "outbox", "Default: auto");
        assertThat(properties.get("fenceguard.db.triggers").get("defaultValue")).isEqualTo(false);
        assertThat((String) properties.get("fenceguard.db.triggers").get("description"))
                .contains("fenceguard.jdbc.trigger-mode").contains("Default: false");
        assertThat(properties.get("fenceguard.db.migrate").get("defaultValue")).isEqualTo(true);
        assertThat((String) properties.get("fenceguard.db.migrate").get("description")).contains("Default: true");
    }

    /** Trigger mode: the database refuses writes without the guard's token; the guard's own writes pass. */
    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void triggerModeInstallsTheTriggersAndTheGuardSetsTheToken(String kind) throws Exception {
        runner(kind).withPropertyValues("fenceguard.db.triggers=true", "fenceguard.jdbc.trigger-mode=true").run(context -> {
            assertThat(context).hasNotFailed();
            String update = "UPDATE " + FencedWrites.TABLE + " SET balance = ? WHERE id = 1";
            try (Connection c = db.physical().getConnection(); PreparedStatement s = c.prepareStatement(update)) {
                s.setLong(1, 666);
                assertThatThrownBy(s::executeUpdate).isInstanceOf(SQLException.class)
                        .hasMessageContaining("without a fencing token");
            }
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            Integer updated = FencedWrites.as(10, () -> tx.execute(status -> jdbc.update(update, 110)));
            assertThat(updated).isEqualTo(1);
            assertThat(FencedWrites.row(db)).isEqualTo("110@10");
            assertThatThrownBy(() -> FencedWrites.as(9, () -> tx.execute(status -> jdbc.update(update, 666))))
                    .isInstanceOf(ConcurrencyFailureException.class);
            assertThat(FencedWrites.row(db)).isEqualTo("110@10");
        });
    }

    @Test
    void triggersWithoutTriggerModeFailStartUpWithTheFix() throws Exception {
        runner("postgresql").withPropertyValues("fenceguard.db.triggers=true").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                    .hasMessageContaining("needs fenceguard.jdbc.trigger-mode=true");
        });
    }

    /**
     * After the application's Flyway and its SQL scripts (which come after its Flyway), before the JdbcTemplate:
     * Boot's database-initialization order.
     */
    private static void assertInitializationOrder(ConfigurableApplicationContext context) {
        var beanFactory = context.getBeanFactory();
        String[] initializers = beanFactory.getBeanNamesForType(FenceguardMigrationInitializer.class);
        assertThat(initializers).hasSize(1);
        assertThat(beanFactory.getBeanDefinition(initializers[0]).getDependsOn())
                .contains("dataSourceScriptDatabaseInitializer");
        assertThat(beanFactory.getBeanDefinition("dataSourceScriptDatabaseInitializer").getDependsOn())
                .contains("flywayInitializer");
        assertThat(beanFactory.getBeanDefinition("jdbcTemplate").getDependsOn()).contains(initializers[0]);
    }

    private List<String> history(String table) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = db.physical().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT " + q("version") + ", " + q("success") + " FROM " + q(table)
                     + " WHERE " + q("version") + " IS NOT NULL ORDER BY " + q("installed_rank"))) {
            while (rs.next()) {
                rows.add(rs.getString(1) + ":" + rs.getBoolean(2));
            }
        }
        return rows;
    }

    /** Flyway creates its history table with quoted lower-case names on H2. */
    private String q(String identifier) {
        return db.kind().equals("h2") ? '"' + identifier + '"' : identifier;
    }

    private int count(String table) throws SQLException {
        try (Connection c = db.physical().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM " + (table.contains("history") ? q(table) : table))) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
