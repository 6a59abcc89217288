package io.fenceguard.spring.boot.autoconfigure.jdbc;

import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.Unfenced;
import io.fenceguard.spring.jdbc.FencedDataSourcePostProcessor;
import java.util.Set;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer;
import org.springframework.boot.flyway.autoconfigure.FlywayMigrationStrategy;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.boot.jdbc.autoconfigure.ApplicationDataSourceScriptDatabaseInitializer;
import org.springframework.boot.sql.autoconfigure.init.ConditionalOnSqlInitialization;
import org.springframework.boot.sql.autoconfigure.init.SqlInitializationProperties;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.util.StringUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Fences the DataSources of a Spring Boot application ({@link FencedDataSourcePostProcessor}) and
 * lets the application's own Flyway migrations and SQL scripts ({@code spring.sql.init}: schema.sql,
 * data.sql) run unfenced; see {@link FenceguardJdbcProperties}.
 */
@AutoConfiguration(afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        beforeName = "org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration")
@ConditionalOnClass({DataSource.class, FencedDataSource.class, DelegatingDataSource.class})
@ConditionalOnBooleanProperty(name = "fenceguard.jdbc.enabled", matchIfMissing = true)
@EnableConfigurationProperties(FenceguardJdbcProperties.class)
public class FenceguardJdbcAutoConfiguration {

    /** Binds {@code fenceguard.jdbc.*} itself, at the first DataSource: a post-processor must not pull other beans in early. */
    @Bean
    @ConditionalOnMissingBean
    static FencedDataSourcePostProcessor fencedDataSourcePostProcessor(Environment environment) {
        Supplier<FenceguardJdbcProperties> properties = SingletonSupplier.of(() -> FenceguardJdbcProperties.bind(environment));
        return new FencedDataSourcePostProcessor(refusals -> properties.get().toConfig(refusals),
                () -> Set.copyOf(properties.get().getExcludedBeans()));
    }

    /**
     * Migrations are admin work: the application's Flyway migrates on the DataSource under the fence,
     * so a {@code V1__} may create and seed fenced tables without a lease.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.flywaydb.core.Flyway",
            "org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer"})
    @ConditionalOnBooleanProperty(name = "fenceguard.jdbc.unfenced-migrations", matchIfMissing = true)
    static class UnfencedFlywayConfiguration {

        /** Boot's Flyway bean: its DataSource (the fenced application DataSource) becomes the one under the fence. */
        @Bean
        @ConditionalOnMissingBean(name = "fenceguardUnfencedFlyway")
        FlywayConfigurationCustomizer fenceguardUnfencedFlyway() {
            return configuration -> {
                DataSource dataSource = configuration.getDataSource();
                if (dataSource != null && FencedDataSource.isFenced(dataSource)) {
                    configuration.dataSource(FencedDataSource.unfenced(dataSource));
                }
            };
        }

        /** A Flyway bean of the application's own, on the fenced DataSource: migrated inside {@link Unfenced}. */
        @Bean
        @ConditionalOnMissingBean
        FlywayMigrationStrategy fenceguardUnfencedMigrationStrategy() {
            return flyway -> Unfenced.run(flyway::migrate);
        }
    }

    /**
     * The application's SQL scripts ({@code spring.sql.init}) are admin work as well: they run on the
     * DataSource under the fence, so a schema.sql may create a fenced table and a data.sql seed it. The same
     * initializer, conditions and settings as Boot's own (which backs off for it), on the unfenced DataSource.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.springframework.jdbc.datasource.init.DatabasePopulator",
            "org.springframework.boot.jdbc.autoconfigure.ApplicationDataSourceScriptDatabaseInitializer"})
    @ConditionalOnBooleanProperty(name = "fenceguard.jdbc.unfenced-migrations", matchIfMissing = true)
    @ConditionalOnMissingBean(type = "org.springframework.boot.sql.autoconfigure.init.ApplicationScriptDatabaseInitializer")
    @ConditionalOnSingleCandidate(DataSource.class)
    @ConditionalOnSqlInitialization
    @Import(DatabaseInitializationDependencyConfigurer.class)
    @EnableConfigurationProperties(SqlInitializationProperties.class)
    static class UnfencedSqlInitializationConfiguration {

        @Bean
        ApplicationDataSourceScriptDatabaseInitializer dataSourceScriptDatabaseInitializer(DataSource dataSource,
                SqlInitializationProperties properties) {
            DataSource unfenced = FencedDataSource.isFenced(dataSource) ? FencedDataSource.unfenced(dataSource)
                    : dataSource;
            return new ApplicationDataSourceScriptDatabaseInitializer(
                    withCredentials(unfenced, properties.getUsername(), properties.getPassword()), properties);
        }

        /** spring.sql.init.username/password: a connection of their own, as Boot's initializer makes it. */
        private static DataSource withCredentials(DataSource dataSource, String username, String password) {
            if (StringUtils.hasText(username) && StringUtils.hasText(password)) {
                return DataSourceBuilder.derivedFrom(dataSource).username(username).password(password)
                        .type(SimpleDriverDataSource.class).build();
            }
            return dataSource;
        }
    }
}
