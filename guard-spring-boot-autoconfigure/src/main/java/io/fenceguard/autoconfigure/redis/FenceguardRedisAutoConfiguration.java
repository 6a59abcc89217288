package io.fenceguard.autoconfigure.redis;

import io.fenceguard.autoconfigure.core.ConditionalOnLeaseStore;
import io.fenceguard.autoconfigure.core.FenceguardLeaseAutoConfiguration;
import io.fenceguard.autoconfigure.core.LeaseStore;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.redis.RedisLeaseConfig;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.redis.JdbcTokenEpochSource;
import io.fenceguard.redis.TokenEpochSource;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import java.time.Duration;
import java.util.function.BiFunction;
import java.util.function.Function;
import javax.sql.DataSource;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.Pool;

/**
 * A {@link RedisLeaseProvider} on the application's {@link RedissonClient} (the Redisson starter's or
 * its own; never a second client), else on its one Jedis pool, when {@code fenceguard.lease.store} is {@code auto} or {@code redis}
 * and the application has no {@link LeaseProvider} of its own. The circuit breaker comes from
 * resilience4j's {@link CircuitBreakerRegistry} when there is one, so that it shows in its metrics.
 */
@AutoConfiguration(before = FenceguardLeaseAutoConfiguration.class, afterName = {
        "org.redisson.spring.starter.RedissonAutoConfigurationV4",
        "org.redisson.spring.starter.RedissonAutoConfigurationV2",
        "org.redisson.spring.starter.RedissonAutoConfiguration",
        "io.github.resilience4j.springboot3.circuitbreaker.autoconfigure.CircuitBreakerAutoConfiguration"})
@ConditionalOnClass({RedissonClient.class, RedisLeaseProvider.class})
@ConditionalOnBooleanProperty(name = "fenceguard.enabled", matchIfMissing = true)
@ConditionalOnLeaseStore({LeaseStore.AUTO, LeaseStore.REDIS})
@EnableConfigurationProperties(FenceguardRedisProperties.class)
public class FenceguardRedisAutoConfiguration {

    /** Closed with the context; the RedissonClient stays the application's. */
    @Bean
    @ConditionalOnBean(RedissonClient.class)
    @ConditionalOnMissingBean(LeaseProvider.class)
    public RedisLeaseProvider redisLeaseProvider(RedissonClient redisson, FenceguardRedisProperties properties,
                                                 ObjectProvider<CircuitBreakerRegistry> registry,
                                                 ObjectProvider<TokenEpochSource> epochSources,
                                                 ObjectProvider<DataSource> dataSources) {
        return provider(properties, registry, epochSources, dataSources, config -> RedisLeaseProvider.of(redisson, config),
                (config, breaker) -> RedisLeaseProvider.of(redisson, config, breaker));
    }

    /**
     * Without a RedissonClient, on the application's one Jedis {@code Pool} bean ({@code JedisPool},
     * {@code JedisSentinelPool}): lease calls on the caller's thread ({@link RedisLeaseProvider#ofJedis}).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "redis.clients.jedis.util.Pool")
    static class OnJedis {

        @Bean
        @ConditionalOnMissingBean(type = {"io.fenceguard.core.spi.LeaseProvider", "org.redisson.api.RedissonClient"})
        @ConditionalOnSingleCandidate(type = "redis.clients.jedis.util.Pool")
        RedisLeaseProvider jedisRedisLeaseProvider(Pool<Jedis> jedis, FenceguardRedisProperties properties,
                                                   ObjectProvider<CircuitBreakerRegistry> registry,
                                                   ObjectProvider<TokenEpochSource> epochSources,
                                                   ObjectProvider<DataSource> dataSources) {
            return provider(properties, registry, epochSources, dataSources,
                    config -> RedisLeaseProvider.ofJedis(jedis, config),
                    (config, breaker) -> RedisLeaseProvider.ofJedis(jedis, config, breaker));
        }
    }

    /** The config from the properties, and the breaker from the application's registry when it has one. */
    private static RedisLeaseProvider provider(FenceguardRedisProperties properties,
                                               ObjectProvider<CircuitBreakerRegistry> registry,
                                               ObjectProvider<TokenEpochSource> epochSources,
                                               ObjectProvider<DataSource> dataSources,
                                               Function<RedisLeaseConfig, RedisLeaseProvider> withOwnBreaker,
                                               BiFunction<RedisLeaseConfig, CircuitBreaker, RedisLeaseProvider> withBreaker) {
        RedisLeaseConfig config = properties.toRedisLeaseConfig(epochSource(properties, epochSources, dataSources));
        CircuitBreakerRegistry breakers = registry.getIfAvailable();
        if (breakers == null) {
            return withOwnBreaker.apply(config);
        }
        return withBreaker.apply(config, breakers.circuitBreaker(config.name(), RedisLeaseProvider.breakerConfig(config)));
    }

    /** The application's own source, else a sequence in its DataSource when asked for, else none (clock floor). */
    private static TokenEpochSource epochSource(FenceguardRedisProperties properties,
                                                ObjectProvider<TokenEpochSource> epochSources,
                                                ObjectProvider<DataSource> dataSources) {
        TokenEpochSource own = epochSources.getIfAvailable();
        if (own != null || properties.getTokenEpoch() == FenceguardRedisProperties.TokenEpoch.CLOCK) {
            return own;
        }
        DataSource dataSource = dataSources.getIfUnique();
        if (dataSource == null) {
            throw new IllegalStateException("fenceguard.redis.token-epoch=database needs one DataSource bean (or a "
                    + "TokenEpochSource bean); found " + dataSources.stream().count());
        }
        return JdbcTokenEpochSource.of(dataSource, properties.getTokenEpochSequence(), Duration.ofSeconds(5));
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class Health {

        @Bean
        @ConditionalOnMissingBean
        RedisLeaseStoreHealth redisLeaseStoreHealth() {
            return new RedisLeaseStoreHealth();
        }
    }
}
