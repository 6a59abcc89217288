package io.fenceguard.autoconfigure.core;

import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.internal.RedisCalls;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * A {@link LeaseManager} on the application's {@link RedissonClient} (the Redisson starter's, or the
 * application's own); never a second client. The circuit breaker comes from resilience4j's registry
 * when there is one, so that it shows in its metrics.
 */
@AutoConfiguration(afterName = {
        "org.redisson.spring.starter.RedissonAutoConfigurationV4",
        "org.redisson.spring.starter.RedissonAutoConfigurationV2",
        "io.github.resilience4j.springboot.circuitbreaker.autoconfigure.CircuitBreakerAutoConfiguration"})
@ConditionalOnClass(RedissonClient.class)
@ConditionalOnBean(RedissonClient.class)
@ConditionalOnProperty(prefix = "guard", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(GuardProperties.class)
public class GuardCoreAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public LeaseManager leaseManager(RedissonClient redisson, GuardProperties properties,
                                     ObjectProvider<CircuitBreakerRegistry> registry) {
        LeaseConfig config = properties.toLeaseConfig();
        CircuitBreakerRegistry breakers = registry.getIfAvailable();
        if (breakers == null) {
            return LeaseManager.of(redisson, config);
        }
        return LeaseManager.of(redisson, config,
                breakers.circuitBreaker(config.clientName() + "-redis", RedisCalls.breakerConfig(config)));
    }
}
