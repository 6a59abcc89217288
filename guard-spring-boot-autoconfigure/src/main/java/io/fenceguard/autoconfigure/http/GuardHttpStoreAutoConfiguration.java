package io.fenceguard.autoconfigure.http;

import io.fenceguard.http.HighWaterStore;
import io.fenceguard.http.InMemoryHighWaterStore;
import io.fenceguard.http.JdbcHighWaterStore;
import io.fenceguard.http.RedisHighWaterStore;
import javax.sql.DataSource;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The high-water store chosen by {@code guard.http.store.type}. */
@AutoConfiguration(afterName = {
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.redisson.spring.starter.RedissonAutoConfigurationV2",
        "org.redisson.spring.starter.RedissonAutoConfiguration"})
@EnableConfigurationProperties(GuardHttpProperties.class)
public class GuardHttpStoreAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = "guard.http.store.type", havingValue = "memory", matchIfMissing = true)
    static class Memory {
        @Bean
        @ConditionalOnMissingBean
        HighWaterStore highWaterStore() {
            return InMemoryHighWaterStore.create();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = "guard.http.store.type", havingValue = "jdbc")
    static class Jdbc {
        @Bean
        @ConditionalOnMissingBean
        HighWaterStore highWaterStore(ObjectProvider<DataSource> dataSource, GuardHttpProperties properties) {
            DataSource source = dataSource.getIfUnique();
            if (source == null) {
                throw new IllegalStateException("guard.http.store.type=jdbc needs one DataSource bean, or a "
                        + "HighWaterStore bean of your own");
            }
            return JdbcHighWaterStore.of(source, properties.getStore().getTable());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = "guard.http.store.type", havingValue = "redis")
    static class Redis {
        @Bean
        @ConditionalOnMissingBean
        HighWaterStore highWaterStore(ObjectProvider<RedissonClient> redisson, GuardHttpProperties properties) {
            RedissonClient client = redisson.getIfUnique();
            if (client == null) {
                throw new IllegalStateException("guard.http.store.type=redis needs one RedissonClient bean, or a "
                        + "HighWaterStore bean of your own");
            }
            return RedisHighWaterStore.of(client, properties.getStore().getKeyPrefix());
        }
    }
}
