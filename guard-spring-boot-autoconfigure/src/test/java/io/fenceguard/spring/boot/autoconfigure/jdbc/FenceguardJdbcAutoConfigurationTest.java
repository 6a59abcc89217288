package io.fenceguard.spring.boot.autoconfigure.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencedTable;
import io.fenceguard.jdbc.FencingConfigurationException;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.ClaimMode;
import io.fenceguard.spring.jdbc.FencedDataSourcePostProcessor;
import io.fenceguard.spring.jdbc.FencedTablesConfigurationException;
import java.util.Map;
import javax.sql.DataSource;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer;
import org.springframework.boot.flyway.autoconfigure.FlywayMigrationStrategy;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class FenceguardJdbcAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FenceguardJdbcAutoConfiguration.class))
            .withUserConfiguration(DataSources.class);

    @Test
    void wrapsDataSourceBeansWithTheConfiguredFence() {
        runner.withPropertyValues("fenceguard.jdbc.tables=accounts,billing.ledger",
                        "fenceguard.jdbc.token-columns.[billing.ledger]=fence_token", "fenceguard.jdbc.claim-mode=first-statement",
                        "fenceguard.jdbc.excluded-beans=migrations", "fenceguard.jdbc.verify-catalog=false",
                        "fenceguard.jdbc.allowed-routines=audit.touch,\"Recalc\"")
                .run(context -> {
                    DataSource main = context.getBean("main", DataSource.class);
                    assertThat(main).isInstanceOf(FencedDataSource.class);
                    FencedDataSource fenced = (FencedDataSource) main;
                    assertThat(fenced.config().tables()).containsExactly(FencedTable.of("accounts"),
                            FencedTable.of("billing.ledger", "fence_token"));
                    assertThat(fenced.config().claimMode()).isEqualTo(ClaimMode.FIRST_STATEMENT);
                    assertThat(fenced.config().verifyCatalog()).isFalse();
                    assertThat(fenced.config().allowedRoutines()).containsExactly("audit.touch", "\"Recalc\"");
                    assertThat(fenced.target()).isInstanceOf(JdbcDataSource.class);
                    assertThat(context.getBean("migrations", DataSource.class)).isInstanceOf(JdbcDataSource.class);
                    assertThat(fenced.explain("UPDATE accounts SET x = ?")).contains("current_token = CASE");
                });
    }

    @Test
    void theCatalogCheckIsOnByDefaultAndNamesAMissingTable() {
        runner.withPropertyValues("fenceguard.jdbc.tables=\"No Such Table\"").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).isInstanceOf(FencedTablesConfigurationException.class)
                    .hasMessageContaining("No Such Table").hasMessageContaining("does not exist")
                    .hasCauseInstanceOf(FencingConfigurationException.class);
            assertThat(context.getStartupFailure().getMessage()).doesNotContain("\n");
        });
        runner.withPropertyValues("fenceguard.jdbc.tables=\"No Such Table\"", "fenceguard.jdbc.verify-catalog=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    FencedDataSource fenced = (FencedDataSource) context.getBean("main", DataSource.class);
                    assertThat(fenced.config().tables()).containsExactly(FencedTable.of("\"No Such Table\""));
                });
    }

    @Test
    void canBeSwitchedOff() {
        runner.withPropertyValues("fenceguard.jdbc.enabled=false").run(context -> {
            assertThat(context.getBean("main", DataSource.class)).isInstanceOf(JdbcDataSource.class);
            assertThat(context).doesNotHaveBean(FencedDataSourcePostProcessor.class);
        });
    }

    @Test
    void backsOffForAUserDefinedPostProcessor() {
        runner.withUserConfiguration(OwnPostProcessor.class).run(context -> {
            assertThat(context).hasSingleBean(FencedDataSourcePostProcessor.class);
            assertThat(context.getBean("main", DataSource.class)).isInstanceOf(JdbcDataSource.class);
        });
    }

    @Test
    void theApplicationsFlywayMigratesUnfencedUnlessSwitchedOff() {
        runner.run(context -> {
            assertThat(context).hasBean("fenceguardUnfencedFlyway");
            assertThat(context).hasSingleBean(FlywayMigrationStrategy.class);
        });
        runner.withPropertyValues("fenceguard.jdbc.unfenced-migrations=false").run(context -> {
            assertThat(context).doesNotHaveBean("fenceguardUnfencedFlyway");
            assertThat(context).doesNotHaveBean(FlywayMigrationStrategy.class);
        });
    }

    @Test
    void theUnfencedFlywayCustomizerPointsFlywayBelowTheFence() {
        runner.withPropertyValues("fenceguard.jdbc.tables=accounts", "fenceguard.jdbc.verify-catalog=false").run(context -> {
            DataSource fenced = context.getBean("main", DataSource.class);
            FluentConfiguration configuration = new FluentConfiguration().dataSource(fenced);
            context.getBean("fenceguardUnfencedFlyway", FlywayConfigurationCustomizer.class).customize(configuration);
            assertThat(configuration.getDataSource()).isSameAs(((FencedDataSource) fenced).target());
        });
    }

    @Test
    @SuppressWarnings("unchecked")
    void theGateKeysAreDeprecatedForTheirHighWaterNames() throws Exception {
        Map<String, Map<String, Object>> properties = Metadata.properties("fenceguard.jdbc.");
        assertThat((Map<String, Object>) properties.get("fenceguard.jdbc.gate-mode").get("deprecation"))
                .containsEntry("replacement", "fenceguard.jdbc.claim-mode");
        assertThat((Map<String, Object>) properties.get("fenceguard.jdbc.gate-table").get("deprecation"))
                .containsEntry("replacement", "fenceguard.jdbc.high-water-table");
    }

    @Test
    void theGateKeysStillConfigureTheFence() {
        runner.withPropertyValues("fenceguard.jdbc.tables=accounts", "fenceguard.jdbc.verify-catalog=false",
                        "fenceguard.jdbc.gate-mode=first-statement", "fenceguard.jdbc.gate-table=audit.marks")
                .run(context -> {
                    FencedDataSource fenced = (FencedDataSource) context.getBean("main", DataSource.class);
                    assertThat(fenced.config().claimMode()).isEqualTo(ClaimMode.FIRST_STATEMENT);
                    assertThat(fenced.config().highWaterTable()).isEqualTo("audit.marks");
                });
    }

    @Test
    void everyPropertyHasADescriptionAndTheDefaultsOfTheLibrary() throws Exception {
        Map<String, Map<String, Object>> properties = Metadata.properties("fenceguard.jdbc.");
        assertThat(properties.keySet()).containsExactlyInAnyOrder("fenceguard.jdbc.enabled",
                "fenceguard.jdbc.tables", "fenceguard.jdbc.token-column", "fenceguard.jdbc.token-columns",
                "fenceguard.jdbc.claim-mode", "fenceguard.jdbc.high-water-table", "fenceguard.jdbc.dialect",
                "fenceguard.jdbc.plan-cache-size", "fenceguard.jdbc.excluded-beans",
                "fenceguard.jdbc.unfenced-migrations", "fenceguard.jdbc.verify-catalog",
                "fenceguard.jdbc.allowed-routines", "fenceguard.jdbc.trigger-mode", "fenceguard.jdbc.gate-mode",
                "fenceguard.jdbc.gate-table");
        properties.values().stream().filter(p -> !p.containsKey("deprecation"))
                .forEach(p -> assertThat((String) p.get("description")).as("%s", p.get("name"))
                        .isNotBlank().contains("Default:"));
        assertThat(properties.get("fenceguard.jdbc.token-column").get("defaultValue"))
                .isEqualTo(FencedTable.DEFAULT_TOKEN_COLUMN);
        assertThat(properties.get("fenceguard.jdbc.high-water-table").get("defaultValue"))
                .isEqualTo(FencingConfig.DEFAULT_HIGH_WATER_TABLE);
        assertThat(((Number) properties.get("fenceguard.jdbc.plan-cache-size").get("defaultValue")).intValue())
                .isEqualTo(FencingConfig.DEFAULT_PLAN_CACHE_SIZE);
        assertThat(properties.get("fenceguard.jdbc.claim-mode").get("defaultValue")).isEqualTo("explicit");
        assertThat(properties.get("fenceguard.jdbc.enabled").get("defaultValue")).isEqualTo(true);
        assertThat(properties.get("fenceguard.jdbc.unfenced-migrations").get("defaultValue")).isEqualTo(true);
        assertThat(properties.get("fenceguard.jdbc.verify-catalog").get("defaultValue")).isEqualTo(true);
        FenceguardJdbcProperties defaults = new FenceguardJdbcProperties();
        assertThat(defaults.toConfig()).isEqualTo(FencingConfig.builder().build());
    }

    @Configuration(proxyBeanMethods = false)
    static class DataSources {
        @Bean
        DataSource main() {
            return h2("main");
        }

        @Bean
        DataSource migrations() {
            return h2("migrations");
        }

        private static DataSource h2(String name) {
            JdbcDataSource dataSource = new JdbcDataSource();
            dataSource.setURL("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
            return dataSource;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnPostProcessor {
        @Bean
        static FencedDataSourcePostProcessor fencedDataSourcePostProcessor() {
            // a no-op replacement: nothing is wrapped
            return new FencedDataSourcePostProcessor(refusals -> FencingConfig.builder().onRefusal(refusals).build()) {
                @Override
                public Object postProcessAfterInitialization(Object bean, String beanName) {
                    return bean;
                }
            };
        }
    }
}
