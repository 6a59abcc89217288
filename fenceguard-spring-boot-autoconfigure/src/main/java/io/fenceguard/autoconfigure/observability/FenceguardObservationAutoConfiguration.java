package io.fenceguard.autoconfigure.observability;

import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.Problem;
import io.fenceguard.admission.RefusalListener;
import io.fenceguard.autoconfigure.core.FenceguardLeaseAutoConfiguration;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.jdbc.FencingRefusedException;
import io.fenceguard.jdbc.StaleTokenException;
import io.fenceguard.jdbc.StatementRefusalListener;
import io.fenceguard.messaging.MessageRefusalListener;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Observations of leases and refusals (Micrometer Observation API: meters and spans from one instrument),
 * and the {@code fenceguard} actuator endpoint, each when its library is present.
 */
@AutoConfiguration(after = FenceguardLeaseAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnBean(LeaseManager.class)
@EnableConfigurationProperties(FenceguardObservabilityProperties.class)
public class FenceguardObservationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public FenceguardActivity fenceguardActivity(LeaseManager leases, FenceguardObservabilityProperties properties) {
        FenceguardActivity activity = new FenceguardActivity(properties.getRecentEvents());
        leases.addObserver(activity);
        return activity;
    }

    @Bean
    @ConditionalOnMissingBean
    public ObservedRefusals fenceguardObservedRefusals(ObjectProvider<ObservationRegistry> registry,
            FenceguardActivity activity, FenceguardObservabilityProperties properties) {
        return new ObservedRefusals(registry.getIfAvailable(() -> ObservationRegistry.NOOP), activity,
                properties.isIncludeResource());
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ObservationRegistry.class)
    @ConditionalOnBean(ObservationRegistry.class)
    static class Leases {

        @Bean
        @ConditionalOnMissingBean
        ObservedLeases fenceguardObservedLeases(LeaseManager leases, ObservationRegistry registry,
                FenceguardObservabilityProperties properties) {
            ObservedLeases observer = new ObservedLeases(registry, properties.isIncludeResource());
            leases.addObserver(observer);
            return observer;
        }
    }

    /** HTTP refusals (stale tokens, signing failures, …) into observations and the endpoint. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RefusalListener.class)
    static class Http {

        @Bean
        RefusalListener fenceguardObservedHttpRefusals(ObservedRefusals refusals) {
            return (method, path, problem) -> refusals.refused("http", reason(problem),
                    problem.resource().map(Object::toString).orElse(null),
                    problem.token().map(Object::toString).orElse(null),
                    problem.highWater().map(Object::toString).orElse(null), problem.detail());
        }

        private static String reason(Problem problem) {
            String type = problem.type();
            return type.startsWith(Problem.TYPE_PREFIX) ? type.substring(Problem.TYPE_PREFIX.length()) : String.valueOf(problem.status());
        }

        /** The high-water stores in the {@code fenceguard} health. */
        @Bean
        @ConditionalOnClass(name = "org.springframework.boot.health.contributor.Health")
        @ConditionalOnMissingBean
        HighWaterStoreHealth fenceguardHighWaterStoreHealth(ObjectProvider<HighWaterStore> stores) {
            return new HighWaterStoreHealth(stores);
        }

        /** Notes the answers of the auto-configured high-water store for the endpoint. */
        @Bean
        static BeanPostProcessor fenceguardHighWaterRecorder(ObjectProvider<FenceguardActivity> activity) {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String beanName) {
                    if ("highWaterStore".equals(beanName) && bean instanceof HighWaterStore store
                            && !(bean instanceof RecordingHighWaterStore)) {
                        FenceguardActivity seen = activity.getIfAvailable();
                        return seen == null ? bean : new RecordingHighWaterStore(store, seen);
                    }
                    return bean;
                }
            };
        }
    }

    /** Statements refused by fenceguard-jdbc (stale tokens at the database, statements the guard will not send). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(StatementRefusalListener.class)
    static class Jdbc {

        @Bean
        StatementRefusalListener fenceguardObservedStatementRefusals(ObservedRefusals refusals) {
            return refusal -> {
                if (refusal instanceof StaleTokenException stale) {
                    refusals.refused("jdbc", "stale", stale.resource() == null ? null : stale.resource().value(),
                            stale.token() == null ? null : String.valueOf(stale.token().value()), null,
                            stale.getMessage());
                } else if (refusal instanceof FencingRefusedException refused) {
                    refusals.refused("jdbc", refused.reason().name().toLowerCase(java.util.Locale.ROOT),
                            refused.fence().map(f -> f.resource().value()).orElse(null),
                            refused.fence().map(f -> String.valueOf(f.token().value())).orElse(null), null,
                            refused.getMessage());
                }
            };
        }
    }

    /** Refused messages: the application passes this listener to {@code MessageAdmission.of(store, listener)}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MessageRefusalListener.class)
    static class Messaging {

        @Bean
        @ConditionalOnMissingBean
        MessageRefusalListener fenceguardObservedMessageRefusals(ObservedRefusals refusals) {
            return (source, refusal) -> refusals.refused("messaging", refusal.reason().name().toLowerCase(java.util.Locale.ROOT),
                    refusal.resource() == null ? null : refusal.resource().value(),
                    refusal.token() == null ? null : String.valueOf(refusal.token().value()),
                    refusal.highWater().map(hw -> String.valueOf(hw.value())).orElse(null), refusal.getMessage());
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
