package io.fenceguard.spring.boot.autoconfigure.core;

import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.core.spi.LeaseProvider;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.ClassUtils;

/**
 * The {@link LeaseManager} on whichever {@link LeaseProvider} bean exists: the application's own, the
 * Redis one ({@code FenceguardRedisAutoConfiguration}, when there is a RedissonClient bean), or the
 * in-memory one when {@code fenceguard.lease.store=memory}. With none, startup fails with one line
 * saying what to add ({@link NoLeaseStoreException}): memory is never chosen silently, because its
 * tokens restart at 1 and a second instance would not see its leases. Each store's auto-configuration
 * (Redis, ZooKeeper, JDBC, Redlock) orders itself before this one.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "fenceguard.enabled", matchIfMissing = true)
@EnableConfigurationProperties(FenceguardProperties.class)
public class FenceguardLeaseAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(LeaseProvider.class)
    @ConditionalOnLeaseStore(LeaseStore.MEMORY)
    public InMemoryLeaseProvider inMemoryLeaseProvider() {
        return InMemoryLeaseProvider.create();
    }

    /** Closing the manager stops renewals; the provider bean is closed by its own definition. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public LeaseManager leaseManager(ObjectProvider<LeaseProvider> providers, FenceguardProperties properties,
                                     ResourceLoader resources) {
        LeaseProvider provider = providers.getIfAvailable();
        if (provider == null) {
            // The context's class loader, as for the @ConditionalOnClass that decided there is no Redis provider.
            ClassLoader loader = resources.getClassLoader();
            // fenceguard-redis alone: which Redis client the application lacks is the message's business
            boolean redisModule = ClassUtils.isPresent("io.fenceguard.redis.RedisLeaseProvider", loader);
            throw NoLeaseStoreException.of(properties.getLease().getStore(), redisModule);
        }
        return LeaseManager.of(provider, properties.getLease().toLeaseConfig());
    }
}
