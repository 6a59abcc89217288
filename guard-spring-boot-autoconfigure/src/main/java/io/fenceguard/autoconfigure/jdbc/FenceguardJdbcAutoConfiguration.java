package io.fenceguard.autoconfigure.jdbc;

import io.fenceguard.jdbc.FencedDataSource;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/** Fences every DataSource bean of a Spring Boot application; see {@link FenceguardJdbcProperties}. */
@AutoConfiguration
@ConditionalOnClass({DataSource.class, FencedDataSource.class})
@ConditionalOnProperty(prefix = "guard.jdbc", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(FenceguardJdbcProperties.class)
public class FenceguardJdbcAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    static FencedDataSourcePostProcessor fencedDataSourcePostProcessor(Environment environment) {
        return new FencedDataSourcePostProcessor(environment);
    }
}
