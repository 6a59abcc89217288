package io.fenceguard.spring.boot.autoconfigure.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.spring.boot.autoconfigure.jdbc.FencedWrites;
import io.fenceguard.spring.boot.autoconfigure.jdbc.FenceguardJdbcAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.jdbc.ScratchDatabase;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfigurationException;
import io.fenceguard.spring.schema.FenceguardMigrationInitializer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.sql.autoconfigure.init.ApplicationScriptDatabaseInitializer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.init.ScriptStatementFailedException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A Boot application without Flyway of its own, as the starter makes it: flyway-core on the classpath (for the
 * guard's migrations) but not Boot's Flyway auto-configuration (spring-boot-flyway), the fenced table from {@code schema.sql}, its first row from
 * {@code data.sql}. The scripts run unfenced, then the guard migrates its own tables, then the application's
 * writes are fenced; Boot's Flyway stays off, so the application's {@code db/migration} (which would create the
 * same table again) is not run. On real PostgreSQL and MariaDB (skipped with the reason where there is none) and H2.
 */
class SqlInitializationWithoutFlywayTest {

    static final String[] KINDS = ScratchDatabase.KINDS;
    private ScratchDatabase db;

    private ApplicationContextRunner runner(String kind) throws SQLException {
        db = ScratchDatabase.of(kind);
        // no FlywayAutoConfiguration, as without spring-boot-flyway (which the starter does not bring)
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataSourceInitializationAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
                        JdbcTemplateAutoConfiguration.class, FenceguardJdbcAutoConfiguration.class,
                        FenceguardDbAutoConfiguration.class))
                .withPropertyValues(db.datasourceProperties())
                .withPropertyValues("fenceguard.jdbc.tables=" + FencedWrites.TABLE, "spring.sql.init.mode=always",
                        "spring.sql.init.schema-locations=classpath:sqlinit/schema.sql",
                        "spring.sql.init.data-locations=classpath:sqlinit/data.sql");
    }

    @AfterEach
    void drop() {
        if (db != null) {
            db.close();
        }
    }

    @ParameterizedTest
    @FieldSource("KINDS")
    void theScriptsRunUnfencedThenTheGuardMigratesAndTheWritesAreFenced(String kind) throws Exception {
        runner(kind).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(ApplicationScriptDatabaseInitializer.class);
            assertThat(FencedWrites.row(db)).as("seeded by data.sql").isEqualTo("100@0");
            // the application's table was there first: the guard's history starts at a baseline 0, then row
            // fencing's own V1
            assertThat(history(FenceguardMigrations.HISTORY_TABLE)).containsExactly("0:true", "1:true");
            assertThatThrownBy(() -> history("flyway_schema_history")).as("no Flyway run of the application's")
                    .isInstanceOf(SQLException.class);

            var beanFactory = context.getBeanFactory();
            String[] guard = beanFactory.getBeanNamesForType(FenceguardMigrationInitializer.class);
            String[] scripts = beanFactory.getBeanNamesForType(ApplicationScriptDatabaseInitializer.class);
            assertThat(beanFactory.getBeanDefinition(guard[0]).getDependsOn()).contains(scripts[0]);
            assertThat(beanFactory.getBeanDefinition("jdbcTemplate").getDependsOn()).contains(guard[0], scripts[0]);

            assertThat(context.getBean(javax.sql.DataSource.class)).isInstanceOf(FencedDataSource.class);
            FencedWrites.assertJdbcTemplateFencedOnce(context.getBean(JdbcTemplate.class),
                    new TransactionTemplate(context.getBean(PlatformTransactionManager.class)), db);
        });
    }

    @Test
    void fencedScriptsStopAtTheCatalogCheck() throws Exception {
        // what the unfenced scripts spare the application: schema.sql on the fenced DataSource meets the check first
        runner("h2").withPropertyValues("fenceguard.jdbc.unfenced-migrations=false").run(context -> {
            assertThat(context).hasFailed();
            assertThat(causeOfType(context.getStartupFailure(), FencingConfigurationException.class))
                    .as("a FencingConfigurationException in the cause chain").isNotNull()
                    .hasMessageContaining("fg_acc does not exist");
        });
    }

    @Test
    void theScriptsStillStopOnTheirOwnErrors() throws Exception {
        runner("h2").withPropertyValues("spring.sql.init.data-locations=classpath:sqlinit/schema.sql").run(context -> {
            assertThat(context).hasFailed();
            assertThat(causeOfType(context.getStartupFailure(), ScriptStatementFailedException.class)).isNotNull();
        });
    }

    private static Throwable causeOfType(Throwable failure, Class<? extends Throwable> type) {
        Throwable cause = failure;
        while (cause != null && !type.isInstance(cause)) {
            cause = cause.getCause();
        }
        return cause;
    }

    private List<String> history(String table) throws SQLException {
        String q = db.kind().equals("h2") ? "\"" : "";
        List<String> rows = new ArrayList<>();
        try (Connection c = db.physical().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT " + q + "version" + q + ", " + q + "success" + q + " FROM " + q + table
                     + q + " WHERE " + q + "version" + q + " IS NOT NULL ORDER BY " + q + "installed_rank" + q)) {
            while (rs.next()) {
                rows.add(rs.getString(1) + ":" + rs.getBoolean(2));
            }
        }
        return rows;
    }
}
