package io.fenceguard.autoconfigure.db;

import io.fenceguard.db.FenceguardMigrations;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * Migrates the guard's own tables on the application's DataSource at start-up
 * ({@link FenceguardMigrations}: own location, own history table, dialect detected), right after the
 * application's Flyway and before the beans that use the database; {@code fenceguard.db.migrate=false}
 * switches it off.
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
        FenceguardMigrationInitializer fenceguardMigrationInitializer(DataSource dataSource) {
            return new FenceguardMigrationInitializer(dataSource);
        }
    }

    /** Without Flyway nothing creates the guard's tables: say so once, with the way out. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass("org.flywaydb.core.Flyway")
    static class NoFlyway {

        private static final Logger log = LoggerFactory.getLogger(FenceguardDbAutoConfiguration.class);

        NoFlyway() {
            log.warn("fenceguard: Flyway is not on the classpath, so the guard's tables (fenceguard_gate, "
                    + "fenceguard_http_high_water) are not migrated. Add org.flywaydb:flyway-core (with "
                    + "spring.flyway.enabled=false if the application has no migrations of its own), or apply "
                    + "{} yourself, or set fenceguard.db.migrate=false.", FenceguardMigrations.LOCATION_ROOT + "/<dialect>");
        }
    }
}
