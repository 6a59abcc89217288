package io.fenceguard.autoconfigure.core;

import io.fenceguard.core.LeaseManager;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Lease metrics with Micrometer and a {@code guard} health indicator, each when its library is present. */
@AutoConfiguration(after = GuardCoreAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration"})
@ConditionalOnBean(LeaseManager.class)
public class GuardObservabilityAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static class Metrics {

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnBean(MeterRegistry.class)
        LeaseMetrics leaseMetrics(MeterRegistry registry, LeaseManager leases) {
            LeaseMetrics metrics = new LeaseMetrics(registry);
            leases.addObserver(metrics);
            return metrics;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class HealthCheck {

        @Bean
        @ConditionalOnMissingBean(name = "guardHealthIndicator")
        GuardHealthIndicator guardHealthIndicator(LeaseManager leases) {
            return new GuardHealthIndicator(leases);
        }
    }
}
