package io.fenceguard.autoconfigure.core;

import io.fenceguard.core.LeaseManager;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

/**
 * Lease metrics with Micrometer and the {@code fenceguard} health indicator, each when its library is
 * present. The metrics are a {@link MeterBinder}, so Boot binds them to whatever registries it creates.
 */
@AutoConfiguration(after = FenceguardLeaseAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnBean(LeaseManager.class)
public class FenceguardObservabilityAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterBinder.class)
    static class Metrics {

        @Bean
        @ConditionalOnMissingBean
        FenceguardLeaseMetrics fenceguardLeaseMetrics(LeaseManager leases, ListableBeanFactory beans) {
            // with an ObservationRegistry, acquire and lost are observations (FenceguardObservationAutoConfiguration)
            boolean observed = ClassUtils.isPresent("io.micrometer.observation.ObservationRegistry", getClass().getClassLoader())
                    && beans.getBeanNamesForType(io.micrometer.observation.ObservationRegistry.class, false, false).length > 0;
            return new FenceguardLeaseMetrics(leases, observed);
        }
    }

    /**
     * Nested twice: the condition class of {@code @ConditionalOnEnabledHealthIndicator} lives in
     * spring-boot-health, so it may be read only once the library is known to be there.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class HealthCheck {

        @Configuration(proxyBeanMethods = false)
        @ConditionalOnEnabledHealthIndicator("fenceguard")
        static class Indicator {

            /** The bean name gives the indicator's name: {@code fenceguard}. */
            @Bean
            @ConditionalOnMissingBean(name = "fenceguardHealthIndicator")
            FenceguardHealthIndicator fenceguardHealthIndicator(LeaseManager leases,
                                                                ObjectProvider<LeaseStoreHealth> stores) {
                return new FenceguardHealthIndicator(leases, stores.orderedStream().toList());
            }
        }
    }
}
