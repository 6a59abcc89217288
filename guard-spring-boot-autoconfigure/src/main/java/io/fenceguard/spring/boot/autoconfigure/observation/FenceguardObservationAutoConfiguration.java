package io.fenceguard.spring.boot.autoconfigure.observation;

import io.fenceguard.spring.boot.autoconfigure.core.FenceguardHealthIndicator;
import io.fenceguard.spring.boot.autoconfigure.core.FenceguardLeaseAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.core.LeaseStoreHealth;
import io.fenceguard.spring.boot.autoconfigure.observation.internal.RecordingHighWaterStorePostProcessor;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.spring.observation.FenceguardLeaseMetrics;
import io.fenceguard.spring.observation.FenceguardActivity;
import io.fenceguard.spring.observation.ObservedLeases;
import io.fenceguard.spring.observation.ObservedRefusals;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetricsPublisher;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Observation of leases and refusals, each part when its library is present: observations (Micrometer
 * Observation API: meters and spans from one instrument), lease meters (a {@link MeterBinder} that Boot binds
 * to its registries), the {@code fenceguard} health indicator and its {@code fenceguard.store.up} gauge, the Redis
 * circuit breaker's meters, and the {@code fenceguard} actuator endpoint.
 */
@AutoConfiguration(after = FenceguardLeaseAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnBean(LeaseManager.class)
@EnableConfigurationProperties({FenceguardObservationProperties.class, FormerObservationProperties.class})
public class FenceguardObservationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public FenceguardActivity fenceguardActivity(LeaseManager leases, FenceguardObservationProperties current,
            FormerObservationProperties former) {
        FenceguardActivity activity = new FenceguardActivity(current.orFormer(former).getRecentEvents());
        leases.addObserver(activity);
        return activity;
    }

    @Bean
    @ConditionalOnMissingBean
    public ObservedRefusals fenceguardObservedRefusals(ObjectProvider<ObservationRegistry> registry,
            FenceguardActivity activity, FenceguardObservationProperties current,
            FormerObservationProperties former) {
        return new ObservedRefusals(registry.getIfAvailable(() -> ObservationRegistry.NOOP), activity,
                current.orFormer(former).isIncludeResource());
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ObservationRegistry.class)
    @ConditionalOnBean(ObservationRegistry.class)
    static class Leases {

        @Bean
        @ConditionalOnMissingBean
        ObservedLeases fenceguardObservedLeases(LeaseManager leases, ObservationRegistry registry,
                FenceguardObservationProperties current,
            FormerObservationProperties former) {
            ObservedLeases observer = new ObservedLeases(registry, current.orFormer(former).isIncludeResource());
            leases.addObserver(observer);
            return observer;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterBinder.class)
    static class Metrics {

        /** With an ObservationRegistry bean, acquire and lost are the observations' meters: only held and renewals here. */
        @Bean
        @ConditionalOnMissingBean
        FenceguardLeaseMetrics fenceguardLeaseMetrics(LeaseManager leases, ListableBeanFactory beans) {
            return new FenceguardLeaseMetrics(leases,
                    beans.getBeanNamesForType(ObservationRegistry.class, false, false).length > 0);
        }

        /**
         * Histogram buckets for the acquire timer, so that a p99 can be computed across instances (the
         * operations alert on it); a {@code management.metrics.distribution.percentiles-histogram} setting
         * for it, or for all meters, still decides.
         */
        @Bean
        @ConditionalOnMissingBean(name = "fenceguardAcquireHistogram")
        MeterFilter fenceguardAcquireHistogram() {
            return new MeterFilter() {
                @Override
                public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                    if (!ObservedLeases.ACQUIRE.equals(id.getName()) || config.isPercentileHistogram() != null) {
                        return config;
                    }
                    return DistributionStatisticConfig.builder().percentilesHistogram(true).build().merge(config);
                }
            };
        }
    }

    /**
     * The Redis circuit breaker's own meters ({@code resilience4j.circuitbreaker.state}, {@code .calls}, …,
     * tagged with its name) when resilience4j-micrometer is present and no {@code CircuitBreakerRegistry} bean
     * holds the breaker: a registry of resilience4j's Boot starter publishes its breakers itself.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetricsPublisher",
            "io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry", "io.fenceguard.redis.RedisLeaseProvider",
            "io.micrometer.core.instrument.binder.MeterBinder"})
    static class CircuitBreakerMetrics {

        @Bean
        @ConditionalOnMissingBean(name = "fenceguardCircuitBreakerMetrics")
        MeterBinder fenceguardCircuitBreakerMetrics(LeaseManager leases,
                ObjectProvider<CircuitBreakerRegistry> registries) {
            return meters -> {
                if (!(leases.provider() instanceof RedisLeaseProvider redis)) {
                    return;
                }
                CircuitBreaker breaker = redis.circuitBreaker();
                boolean published = registries.orderedStream()
                        .anyMatch(registry -> registry.getAllCircuitBreakers().contains(breaker));
                if (!published) {
                    new TaggedCircuitBreakerMetricsPublisher(meters)
                            .publishMetrics(breaker);
                }
            };
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

            /**
             * {@code fenceguard.store.up}: 1 while the {@code fenceguard} health (this one or the application's
             * bean of that name) is up, else 0, asked at each scrape: the indicator reads the breaker's state and
             * asks each high-water store once.
             */
            @Configuration(proxyBeanMethods = false)
            @ConditionalOnClass(MeterBinder.class)
            static class StoreUp {

                @Bean
                @ConditionalOnMissingBean(name = "fenceguardStoreUp")
                MeterBinder fenceguardStoreUp(
                        @Qualifier("fenceguardHealthIndicator") ObjectProvider<HealthIndicator> indicator) {
                    return meters -> indicator.ifAvailable(health -> Gauge.builder("fenceguard.store.up", health,
                                    h -> Status.UP.equals(h.health(false).getStatus()) ? 1 : 0)
                            .description("1 while the fenceguard health indicator is up (lease store's circuit"
                                    + " breaker closed, high-water stores answering), else 0")
                            .register(meters));
                }
            }
        }
    }

    /** With HTTP admission: the high-water stores in the health, and their answers in the endpoint. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HighWaterStore.class)
    static class Http {

        /** The high-water stores in the {@code fenceguard} health. */
        @Bean
        @ConditionalOnClass(name = "org.springframework.boot.health.contributor.Health")
        @ConditionalOnMissingBean
        HighWaterStoreHealth fenceguardHighWaterStoreHealth(ObjectProvider<HighWaterStore> stores) {
            return new HighWaterStoreHealth(stores);
        }

        /** Notes the answers of the auto-configured high-water store for the endpoint. */
        @Bean
        static RecordingHighWaterStorePostProcessor fenceguardHighWaterRecorder(
                ObjectProvider<FenceguardActivity> activity) {
            return new RecordingHighWaterStorePostProcessor("highWaterStore", activity);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
    static class ActuatorEndpoint {

        /** Named like the bean of an application's own {@code fenceguard} endpoint, which then wins. */
        @Bean
        @ConditionalOnMissingBean(name = "fenceguardEndpoint")
        @ConditionalOnAvailableEndpoint(FenceguardEndpoint.class)
        FenceguardEndpoint fenceguardEndpoint(LeaseManager leases, FenceguardActivity activity) {
            return new FenceguardEndpoint(leases, activity);
        }
    }
}
