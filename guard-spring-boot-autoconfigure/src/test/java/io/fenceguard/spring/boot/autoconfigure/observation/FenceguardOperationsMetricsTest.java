package io.fenceguard.spring.boot.autoconfigure.observation;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.spring.boot.autoconfigure.core.FenceguardLeaseAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.redis.FenceguardRedisAutoConfiguration;
import io.fenceguard.spring.observation.ObservedLeases;
import io.fenceguard.test.support.TestRedisson;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The meters operators alert on, on real Redis through Boot's metrics auto-configuration: the Redis circuit
 * breaker's resilience4j meters, {@code fenceguard.store.up} following the {@code fenceguard} health, and
 * histogram buckets on the acquire timer.
 */
class FenceguardOperationsMetricsTest {

    private static final RedissonClient redisson = TestRedisson.shared();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class, MetricsAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                    FenceguardRedisAutoConfiguration.class, FenceguardLeaseAutoConfiguration.class,
                    FenceguardObservationAutoConfiguration.class))
            .withBean(RedissonClient.class, () -> redisson)
            .withPropertyValues("fenceguard.redis.key-prefix=fgops" + UUID.randomUUID().toString().substring(0, 8) + ":");

    @Test
    void breakerStateAndStoreUpFollowTheBreaker() {
        runner.run(context -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            CircuitBreaker breaker = ((RedisLeaseProvider) context.getBean(LeaseManager.class).provider()).circuitBreaker();
            assertThat(state(meters, breaker, "closed")).isEqualTo(1.0);
            assertThat(meters.get("fenceguard.store.up").gauge().value()).isEqualTo(1.0);

            breaker.transitionToForcedOpenState();
            try {
                assertThat(state(meters, breaker, "closed")).isEqualTo(0.0);
                assertThat(state(meters, breaker, "forced_open")).isEqualTo(1.0);
                assertThat(meters.get("fenceguard.store.up").gauge().value()).isEqualTo(0.0);
            } finally {
                breaker.transitionToClosedState();
            }
            assertThat(meters.get("fenceguard.store.up").gauge().value()).isEqualTo(1.0);
        });
    }

    /** A breaker in the application's registry is that registry's to publish: not bound a second time. */
    @Test
    void leavesABreakerOfTheApplicationsRegistryToThatRegistry() {
        runner.withBean(CircuitBreakerRegistry.class, CircuitBreakerRegistry::ofDefaults).run(context -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            CircuitBreaker breaker = ((RedisLeaseProvider) context.getBean(LeaseManager.class).provider()).circuitBreaker();
            assertThat(context.getBean(CircuitBreakerRegistry.class).getAllCircuitBreakers()).contains(breaker);
            assertThat(meters.find("resilience4j.circuitbreaker.state").gauges()).isEmpty();
        });
    }

    /** On Prometheus (the simple registry keeps no buckets): buckets by default, none when the application says so. */
    @Test
    void acquireTimerHasHistogramBucketsUnlessTheApplicationSaysOtherwise() {
        ApplicationContextRunner prometheus = runner.withBean(PrometheusMeterRegistry.class,
                () -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        prometheus.run(context -> assertThat(scrapeAfterAcquire(context.getBean(LeaseManager.class),
                context.getBean(PrometheusMeterRegistry.class))).contains("fenceguard_lease_acquire_seconds_bucket{"));
        prometheus.withPropertyValues("management.metrics.distribution.percentiles-histogram.fenceguard.lease.acquire=false")
                .run(context -> assertThat(scrapeAfterAcquire(context.getBean(LeaseManager.class),
                        context.getBean(PrometheusMeterRegistry.class)))
                        .contains("fenceguard_lease_acquire_seconds_count{")
                        .doesNotContain("fenceguard_lease_acquire_seconds_bucket"));
    }

    private static double state(MeterRegistry meters, CircuitBreaker breaker, String state) {
        return meters.get("resilience4j.circuitbreaker.state").tag("name", breaker.getName()).tag("state", state)
                .gauge().value();
    }

    private static String scrapeAfterAcquire(LeaseManager leases, PrometheusMeterRegistry meters) {
        try (Lease lease = leases.acquire("ops:" + UUID.randomUUID(), Duration.ofSeconds(2))) {
            assertThat(lease.isValid()).isTrue();
        }
        Timer acquire = meters.get(ObservedLeases.ACQUIRE).tag("outcome", "acquired").timer();
        assertThat(acquire.count()).isEqualTo(1);
        return meters.scrape();
    }
}
