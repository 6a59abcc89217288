package io.fenceguard.autoconfigure.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencedTable;
import io.fenceguard.jdbc.GateMode;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class FenceguardJdbcAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FenceguardJdbcAutoConfiguration.class))
            .withUserConfiguration(DataSources.class);

    @Test
    void wrapsDataSourceBeansWithTheConfiguredFence() {
        runner.withPropertyValues("guard.jdbc.tables=accounts,billing.ledger",
                        "guard.jdbc.token-columns.[billing.ledger]=fence_token", "guard.jdbc.gate-mode=first-statement",
                        "guard.jdbc.excluded-beans=migrations")
                .run(context -> {
                    DataSource main = context.getBean("main", DataSource.class);
                    assertThat(main).isInstanceOf(FencedDataSource.class);
                    FencedDataSource fenced = (FencedDataSource) main;
                    assertThat(fenced.config().tables()).containsExactly(FencedTable.of("accounts"),
                            FencedTable.of("billing.ledger", "fence_token"));
                    assertThat(fenced.config().gateMode()).isEqualTo(GateMode.FIRST_STATEMENT);
                    assertThat(fenced.target()).isInstanceOf(JdbcDataSource.class);
                    assertThat(context.getBean("migrations", DataSource.class)).isInstanceOf(JdbcDataSource.class);
                    assertThat(fenced.explain("UPDATE accounts SET x = ?")).contains("current_token = CASE");
                });
    }

    @Test
    void canBeSwitchedOff() {
        runner.withPropertyValues("guard.jdbc.enabled=false").run(context -> {
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
    void metadataIsGeneratedForTheProperties() throws Exception {
        try (var in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).isNotNull();
            assertThat(new String(in.readAllBytes())).contains("guard.jdbc.tables", "guard.jdbc.gate-mode",
                    "guard.jdbc.excluded-beans");
        }
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
            return new FencedDataSourcePostProcessor(new org.springframework.mock.env.MockEnvironment()
                    .withProperty("guard.jdbc.enabled", "false"));
        }
    }
}
