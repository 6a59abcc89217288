package io.fenceguard.example.chaos;

import io.fenceguard.spring.boot.autoconfigure.core.LeaseStoreHealth;
import io.fenceguard.core.spi.LeaseProvider;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.health.contributor.Health;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * With {@code example.chaos.enabled=true}, puts a {@link ChaosLeaseProvider} in front of whatever lease
 * store the starter configured (Redis here), so that {@link Chaos} can freeze a holder's renewals.
 * Without it the store is left as it is.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty("example.chaos.enabled")
public class ChaosConfiguration {

    /** Static: a post-processor is created before the other beans, and needs none of them. */
    @Bean
    static BeanPostProcessor chaosLeaseProviderWrapper() {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                if (bean instanceof LeaseProvider provider && !(bean instanceof ChaosLeaseProvider)) {
                    return new ChaosLeaseProvider(provider);
                }
                return bean;
            }
        };
    }

    /** The wrapped store's own health (the Redis circuit breaker), which the other contributors see through the wrapper. */
    @Bean
    LeaseStoreHealth chaosWrappedStoreHealth(ObjectProvider<LeaseStoreHealth> contributors) {
        return new LeaseStoreHealth() {
            @Override
            public void contribute(LeaseProvider provider, Health.Builder builder) {
                if (provider instanceof ChaosLeaseProvider chaos) {
                    contributors.orderedStream().filter(c -> c != this).forEach(c -> c.contribute(chaos.delegate(), builder));
                }
            }
        };
    }
}
