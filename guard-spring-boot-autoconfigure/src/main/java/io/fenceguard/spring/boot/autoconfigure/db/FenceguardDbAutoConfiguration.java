package io.fenceguard.spring.boot.autoconfigure.db;

import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.db.FenceguardTriggers;
import io.fenceguard.db.FenceguardTriggers.FencedColumn;
import io.fenceguard.spring.schema.FenceguardMigrationInitializer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * Migrates the guard's own tables on the application's DataSource at start-up
 * ({@link FenceguardMigrations}: own location, own history table, dialect detected, through Flyway's API
 * whether or not the application uses Flyway), right after the application's Flyway and SQL scripts and
 * before the beans that use the database: the tables of the features in use
 * ({@code fenceguard.db.features}, {@link MigratedFeatures}); {@code fenceguard.db.migrate=false} switches it
 * off. With {@code fenceguard.db.triggers=true} it then installs trigger mode's triggers ({@link FenceguardTriggers})
 * on the fenced tables.
 */
@AutoConfiguration(afterName = {"org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration"})
@ConditionalOnClass({DataSource.class, FenceguardMigrations.class})
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnBooleanProperty(name = "fenceguard.db.migrate", matchIfMissing = true)
@EnableConfigurationProperties(FenceguardDbProperties.class)
public class FenceguardDbAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.flywaydb.core.Flyway",
            "org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer"})
    @Import(DatabaseInitializationDependencyConfigurer.class)
    static class Migration {

        @Bean
        @ConditionalOnMissingBean
        FenceguardMigrationInitializer fenceguardMigrationInitializer(DataSource dataSource,
                FenceguardDbProperties properties, Environment environment, ConfigurableListableBeanFactory beans) {
            return new FenceguardMigrationInitializer(dataSource,
                    MigratedFeatures.resolve(properties.getFeatures(), beans, environment),
                    properties.isTriggers() ? triggerTables(environment) : List.of());
        }

        /** fenceguard.jdbc.tables with their token columns; trigger mode must be on, or the guard's writes fail. */
        private static List<FencedColumn> triggerTables(Environment environment) {
            Binder binder = Binder.get(environment);
            if (!binder.bind("fenceguard.jdbc.trigger-mode", Boolean.class).orElse(false)) {
                throw new IllegalStateException("fenceguard.db.triggers=true needs fenceguard.jdbc.trigger-mode=true:"
                        + " without it the guard sets no token and the triggers refuse its own writes");
            }
            List<String> tables = binder.bind("fenceguard.jdbc.tables", Bindable.listOf(String.class))
                    .orElse(List.of());
            if (tables.isEmpty()) {
                throw new IllegalStateException("fenceguard.db.triggers=true needs the fenced tables in"
                        + " fenceguard.jdbc.tables");
            }
            String tokenColumn = binder.bind("fenceguard.jdbc.token-column", String.class)
                    .orElse(FenceguardTriggers.DEFAULT_TOKEN_COLUMN);
            Map<String, String> tokenColumns = binder.bind("fenceguard.jdbc.token-columns",
                    Bindable.mapOf(String.class, String.class)).orElse(Map.of());
            List<FencedColumn> columns = new ArrayList<>();
            for (String table : tables) {
                columns.add(new FencedColumn(table, tokenColumns.getOrDefault(table, tokenColumn)));
            }
            return columns;
        }
    }

    /** Without Flyway nothing creates the guard's tables: say so once, with the way out. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass("org.flywaydb.core.Flyway")
    static class NoFlyway {

        private static final Logger log = LoggerFactory.getLogger(FenceguardDbAutoConfiguration.class);

        NoFlyway() {
            log.warn("fenceguard: Flyway is not on the classpath, so the guard's tables (fenceguard_gate, "
                    + "fenceguard_http_high_water, ...) are not migrated. Keep org.flywaydb:flyway-core (the starter brings "
                    + "it; it does not switch on Boot's Flyway for the application), or apply "
                    + "{} yourself, or set fenceguard.db.migrate=false.", FenceguardMigrations.LOCATION_ROOT + "/<dialect>");
        }
    }
}
