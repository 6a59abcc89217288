package io.fenceguard.spring.boot.autoconfigure.jdbc.lease;

import io.fenceguard.spring.boot.autoconfigure.core.ConditionalOnLeaseStore;
import io.fenceguard.spring.boot.autoconfigure.core.FenceguardLeaseAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.core.LeaseStore;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.jdbc.lease.JdbcLeaseConfig;
import io.fenceguard.jdbc.lease.JdbcLeaseProvider;
import io.fenceguard.jdbc.lease.JdbcLeaseSchema;
import io.fenceguard.admission.IssuedTokens;
import io.fenceguard.jdbc.lease.JdbcIssuedTokens;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * A {@link JdbcLeaseProvider} on the application's {@link DataSource} when {@code fenceguard.lease.store=jdbc}
 * and the application has no {@link LeaseProvider} of its own; the lease table is created at startup
 * unless {@code fenceguard.jdbc-lease.create-table=false}. With fenceguard-admission, the provider's
 * {@link JdbcIssuedTokens} too: a mark no holder was granted is set back at the first refusal.
 */
@AutoConfiguration(before = FenceguardLeaseAutoConfiguration.class,
        afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass(JdbcLeaseProvider.class)
@ConditionalOnBooleanProperty(name = "fenceguard.enabled", matchIfMissing = true)
@ConditionalOnLeaseStore(LeaseStore.JDBC)
public class FenceguardJdbcLeaseAutoConfiguration {

    /**
     * {@code fenceguard.jdbc-lease.*} over the deprecated {@code fenceguard.jdbc-lock.*}; Boot binds the new prefix
     * again when it post-processes the bean, which changes nothing.
     */
    @Bean
    @ConditionalOnMissingBean
    public FenceguardJdbcLeaseProperties fenceguardJdbcLeaseProperties(Environment environment) {
        return FenceguardJdbcLeaseProperties.bind(environment);
    }

    /** Closed with the context (its renewal threads); the DataSource stays the application's. */
    @Bean
    @ConditionalOnBean(DataSource.class)
    @ConditionalOnMissingBean(LeaseProvider.class)
    public JdbcLeaseProvider jdbcLeaseProvider(DataSource dataSource, FenceguardJdbcLeaseProperties properties) {
        JdbcLeaseConfig config = properties.toJdbcLeaseConfig();
        if (properties.isCreateTable()) {
            JdbcLeaseSchema.create(dataSource, config);
        }
        return JdbcLeaseProvider.of(dataSource, config);
    }

    /** What the provider minted, for setting back marks it never minted: on the same conditions as the provider. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({IssuedTokens.class, JdbcIssuedTokens.class})
    @ConditionalOnBean(DataSource.class)
    @ConditionalOnMissingBean({LeaseProvider.class, IssuedTokens.class})
    static class IssuedTokensConfiguration {

        @Bean
        JdbcIssuedTokens jdbcIssuedTokens(DataSource dataSource, FenceguardJdbcLeaseProperties properties) {
            return JdbcIssuedTokens.of(dataSource, properties.toJdbcLeaseConfig());
        }
    }
}
