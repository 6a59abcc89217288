package io.fenceguard.spring.boot.autoconfigure.stores;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.spring.boot.autoconfigure.core.FenceguardLeaseAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.jdbc.lease.FenceguardJdbcLeaseAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.jdbc.lease.FenceguardJdbcLeaseProperties;
import java.io.InputStream;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/** {@code fenceguard.jdbc-lease.*}, and the former {@code fenceguard.jdbc-lock.*} that is still bound. */
class JdbcLeasePropertiesTest {

    @Test
    void theFormerPrefixIsStillBoundAndTheNewOneWins() {
        FenceguardJdbcLeaseProperties former = FenceguardJdbcLeaseProperties.bind(environment(Map.of(
                "fenceguard.jdbc-lock.table-name", "old_leases", "fenceguard.jdbc-lock.max-poll", "50ms")));
        assertThat(former.getTableName()).isEqualTo("old_leases");
        assertThat(former.getMaxPoll()).isEqualTo(Duration.ofMillis(50));

        FenceguardJdbcLeaseProperties both = FenceguardJdbcLeaseProperties.bind(environment(Map.of(
                "fenceguard.jdbc-lock.table-name", "old_leases", "fenceguard.jdbc-lease.table-name", "leases",
                "fenceguard.jdbc-lock.renew-threads", "3")));
        assertThat(both.getTableName()).isEqualTo("leases");
        assertThat(both.getRenewThreads()).isEqualTo(3);
    }

    @Test
    void aKeyUnderTheFormerPrefixReachesTheStore() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(FenceguardLeaseAutoConfiguration.class,
                        FenceguardJdbcLeaseAutoConfiguration.class))
                .withBean(DataSource.class, () -> {
                    JdbcDataSource h2 = new JdbcDataSource();
                    h2.setURL("jdbc:h2:mem:former_prefix;DB_CLOSE_DELAY=-1");
                    return h2;
                })
                .withPropertyValues("fenceguard.lease.store=jdbc", "fenceguard.jdbc-lock.statement-timeout=10ms")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("fenceguard.jdbc-lease").hasStackTraceContaining("statementTimeout"));
    }

    @Test
    void theFormerKeysAreDeprecatedForTheirLeaseNames() throws Exception {
        Map<String, ConfigurationMetadataProperty> properties;
        try (InputStream json = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            properties = ConfigurationMetadataRepositoryJsonBuilder.create(json).build().getAllProperties();
        }
        for (String key : new String[] {"table-name", "create-table", "statement-timeout", "min-poll", "max-poll",
                "renew-threads"}) {
            assertThat(properties).containsKey("fenceguard.jdbc-lease." + key);
            ConfigurationMetadataProperty former = properties.get("fenceguard.jdbc-lock." + key);
            assertThat(former).as(key).isNotNull();
            assertThat(former.isDeprecated()).as(key).isTrue();
            assertThat(former.getDeprecation().getReplacement()).isEqualTo("fenceguard.jdbc-lease." + key);
        }
    }

    private static StandardEnvironment environment(Map<String, Object> properties) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("test", properties));
        return environment;
    }
}
