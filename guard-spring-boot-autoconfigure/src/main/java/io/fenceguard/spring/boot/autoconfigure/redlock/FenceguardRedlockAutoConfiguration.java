package io.fenceguard.spring.boot.autoconfigure.redlock;

import io.fenceguard.spring.boot.autoconfigure.core.ConditionalOnLeaseStore;
import io.fenceguard.spring.boot.autoconfigure.core.FenceguardLeaseAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.core.LeaseStore;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.redlock.RedlockLeaseProvider;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * A {@link RedlockLeaseProvider} over the masters in {@code fenceguard.redlock.addresses} when
 * {@code fenceguard.lease.store=redlock} and the application has no {@link LeaseProvider} of its own. The
 * masters are independent servers, so their clients are fenceguard's own (not the application's
 * RedissonClient) and are shut down with the context.
 */
@AutoConfiguration(before = FenceguardLeaseAutoConfiguration.class)
@ConditionalOnClass({RedissonClient.class, RedlockLeaseProvider.class})
@ConditionalOnBooleanProperty(name = "fenceguard.enabled", matchIfMissing = true)
@ConditionalOnLeaseStore(LeaseStore.REDLOCK)
@EnableConfigurationProperties(FenceguardRedlockProperties.class)
public class FenceguardRedlockAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LeaseProvider.class)
    RedlockMasters fenceguardRedlockMasters(FenceguardRedlockProperties properties) {
        return new RedlockMasters(properties);
    }

    @Bean
    @ConditionalOnMissingBean(LeaseProvider.class)
    RedlockLeaseProvider redlockLeaseProvider(RedlockMasters masters, FenceguardRedlockProperties properties) {
        return RedlockLeaseProvider.of(masters.clients(), properties.toRedlockLeaseConfig());
    }
}
