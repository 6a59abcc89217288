package io.fenceguard.spring.boot.autoconfigure.redis;

import io.fenceguard.spring.boot.autoconfigure.core.ConditionalOnLeaseStore;
import io.fenceguard.spring.boot.autoconfigure.core.FenceguardLeaseAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.core.LeaseStore;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.redis.RedisLeaseConfig;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.redis.RedisScriptClient;
import io.fenceguard.redis.jedis.JedisScriptClient;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.redis.springdata.SpringDataRedisScriptClient;
import io.fenceguard.redis.TokenEpochSource;
import io.fenceguard.spring.boot.autoconfigure.redis.internal.RedisTokenEpochs;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import javax.sql.DataSource;
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

/**
 * A {@link RedisLeaseProvider} on the Redis client the application already has, never a second one: its
 * {@code RedissonClient} (its own or the Redisson starter's), else its one Jedis {@code Pool}, else its one Spring
 * Data Redis {@code RedisConnectionFactory} (Spring Boot's, Lettuce by default); when
 * {@code fenceguard.lease.store} is {@code auto} or {@code redis} and the application has no {@link LeaseProvider}
 * of its own. Each client is wired in a nested configuration of its own, conditional on its classes, so that an
 * application without it never loads a type that names it. The circuit breaker comes from resilience4j's
 * {@link CircuitBreakerRegistry} when there is one, so that it shows in its metrics. Tokens rest on a durable epoch
 * (a sequence in the application's one DataSource) unless {@code fenceguard.redis.token-epoch=clock} or there is no
 * DataSource ({@code RedisTokenEpochs}).
 */
@AutoConfiguration(before = FenceguardLeaseAutoConfiguration.class, afterName = {
        "org.redisson.spring.starter.RedissonAutoConfigurationV4",
        "org.redisson.spring.starter.RedissonAutoConfigurationV2",
        "org.redisson.spring.starter.RedissonAutoConfiguration",
        "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
        "io.github.resilience4j.springboot3.circuitbreaker.autoconfigure.CircuitBreakerAutoConfiguration"})
@ConditionalOnClass(RedisLeaseProvider.class)
@ConditionalOnBooleanProperty(name = "fenceguard.enabled", matchIfMissing = true)
@ConditionalOnLeaseStore({LeaseStore.AUTO, LeaseStore.REDIS})
@EnableConfigurationProperties(FenceguardRedisProperties.class)
public class FenceguardRedisAutoConfiguration {

    /** Closed with the context; the client under it stays the application's. */
    @Bean
    @ConditionalOnBean(RedisScriptClient.class)
    @ConditionalOnMissingBean(LeaseProvider.class)
    public RedisLeaseProvider redisLeaseProvider(RedisScriptClient client, FenceguardRedisProperties properties,
                                                 ObjectProvider<CircuitBreakerRegistry> registry,
                                                 ObjectProvider<TokenEpochSource> epochSources,
                                                 ObjectProvider<DataSource> dataSources) {
        return provider(client, properties, registry, epochSources, dataSources);
    }

    /** On the application's RedissonClient (its own or the Redisson starter's). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.redisson.api.RedissonClient")
    static class OnRedisson {

        @Bean
        @ConditionalOnSingleCandidate(type = "org.redisson.api.RedissonClient")
        @ConditionalOnMissingBean(RedisScriptClient.class)
        RedisScriptClient redissonScriptClient(org.redisson.api.RedissonClient redisson) {
            return RedissonScriptClient.of(redisson);
        }
    }

    /**
     * Without a RedissonClient, on the application's one Jedis {@code Pool} bean ({@code JedisPool},
     * {@code JedisSentinelPool}): lease calls on the caller's thread ({@link JedisScriptClient}).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "redis.clients.jedis.util.Pool")
    static class OnJedis {

        @Bean
        @ConditionalOnMissingBean(type = {"io.fenceguard.redis.RedisScriptClient", "org.redisson.api.RedissonClient"})
        @ConditionalOnSingleCandidate(type = "redis.clients.jedis.util.Pool")
        RedisScriptClient jedisScriptClient(redis.clients.jedis.util.Pool<redis.clients.jedis.Jedis> jedis) {
            return JedisScriptClient.of(jedis);
        }
    }

    /**
     * Without a RedissonClient or a Jedis {@code Pool}, on the application's one Spring Data Redis
     * {@code RedisConnectionFactory} (Boot's Lettuce one by default), which fenceguard never creates nor replaces:
     * {@link SpringDataRedisScriptClient}, on Lettuce through its shared native connection.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.data.redis.connection.RedisConnectionFactory")
    static class OnSpringDataRedis {

        @Bean
        @ConditionalOnMissingBean(type = {"io.fenceguard.redis.RedisScriptClient", "org.redisson.api.RedissonClient",
                "redis.clients.jedis.util.Pool"})
        @ConditionalOnSingleCandidate(type = "org.springframework.data.redis.connection.RedisConnectionFactory")
        RedisScriptClient springDataRedisScriptClient(
                org.springframework.data.redis.connection.RedisConnectionFactory connectionFactory) {
            return SpringDataRedisScriptClient.of(connectionFactory);
        }
    }

    /** The config from the properties, and the breaker from the application's registry when it has one. */
    private static RedisLeaseProvider provider(RedisScriptClient client, FenceguardRedisProperties properties,
                                       ObjectProvider<CircuitBreakerRegistry> registry,
                                       ObjectProvider<TokenEpochSource> epochSources,
                                       ObjectProvider<DataSource> dataSources) {
        RedisLeaseConfig config = properties.toRedisLeaseConfig(RedisTokenEpochs.resolve(properties, epochSources, dataSources));
        CircuitBreakerRegistry breakers = registry.getIfAvailable();
        if (breakers == null) {
            return RedisLeaseProvider.of(client, config);
        }
        return RedisLeaseProvider.of(client, config,
                breakers.circuitBreaker(config.name(), RedisLeaseProvider.breakerConfig(config, client)));
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
