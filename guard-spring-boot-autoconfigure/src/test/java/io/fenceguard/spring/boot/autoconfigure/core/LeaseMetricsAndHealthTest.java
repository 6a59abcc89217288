package io.fenceguard.spring.boot.autoconfigure.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.spring.boot.autoconfigure.observation.FenceguardObservationAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.redis.FenceguardRedisAutoConfiguration;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.spring.observation.FenceguardLeaseMetrics;
import io.fenceguard.test.support.TestRedisson;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Lease metrics bound by Boot's metrics auto-configuration, and the {@code fenceguard} health indicator. */
class LeaseMetricsAndHealthTest {

    private static final RedissonClient redisson = TestRedisson.shared();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                    FenceguardRedisAutoConfiguration.class, FenceguardLeaseAutoConfiguration.class,
                    FenceguardObservationAutoConfiguration.class))
            .withPropertyValues("fenceguard.redis.key-prefix=fgobs" + System.nanoTime() + ":");

    @Test
    void recordsTheRoundTripOfEachConfirmedRenewal() {
        runner.withBean(RedissonClient.class, () -> redisson)
                .withPropertyValues("fenceguard.lease.lease-time=5s", "fenceguard.lease.renew-interval=200ms")
                .run(context -> {
                    LeaseManager manager = context.getBean(LeaseManager.class);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    try (Lease held = manager.acquire("renewals:" + System.nanoTime(), Duration.ofSeconds(1))) {
                        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                        while (registry.get("fenceguard.lease.renew").timer().count() < 3
                                && System.nanoTime() < deadline) {
                            Thread.sleep(50);
                        }
                    }
                    assertThat(registry.get("fenceguard.lease.renew").timer().count()).isGreaterThanOrEqualTo(3);
                    assertThat(registry.get("fenceguard.lease.renew").timer().max(java.util.concurrent.TimeUnit.NANOSECONDS))
                            .isPositive();
                    // Registered from the start (failed renewals themselves: LeaseManagerTest, on a failing store).
                    assertThat(registry.get("fenceguard.lease.renew.failed").counter()).isNotNull();
                });
    }

    @Test
    void recordsAcquiredNotObtainedAndHeldWithLowCardinalityTags() {
        runner.withBean(RedissonClient.class, () -> redisson).run(context -> {
            LeaseManager manager = context.getBean(LeaseManager.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            String resource = "metrics:" + System.nanoTime();
            Lease held = manager.acquire(resource, Duration.ofSeconds(1));
            assertThat(registry.get("fenceguard.lease.held").gauge().value()).isEqualTo(1.0);
            Thread other = new Thread(() -> {
                try {
                    manager.acquire(resource, Duration.ofMillis(50));
                } catch (LeaseTimeoutException expected) {
                    // counted as not obtained
                }
            });
            other.start();
            other.join();
            held.close();
            assertThat(registry.get("fenceguard.lease.acquire").tag("outcome", "acquired").timer().count()).isEqualTo(1);
            assertThat(registry.get("fenceguard.lease.acquire").tag("outcome", "not_obtained").timer().count())
                    .isEqualTo(1);
            assertThat(registry.get("fenceguard.lease.held").gauge().value()).isZero();
            assertThat(registry.get("fenceguard.lease.lost").counters()).hasSize(LeaseLossReason.values().length)
                    .allSatisfy(counter -> assertThat(counter.count()).isZero());
            // Nothing names the resource: tags stay few whatever the number of resources.
            assertThat(registry.getMeters()).filteredOn(m -> m.getId().getName().startsWith("fenceguard."))
                    .allSatisfy(m -> assertThat(m.getId().getTags())
                            .allSatisfy(tag -> assertThat(tag.getValue()).doesNotContain("metrics:")));
        });
    }

    @Test
    void healthShowsTheStoreAndIsDownWhileTheRedisBreakerIsOpen() {
        runner.withBean(RedissonClient.class, () -> redisson).run(context -> {
            assertThat(context).hasBean("fenceguardHealthIndicator");
            FenceguardHealthIndicator indicator = context.getBean(FenceguardHealthIndicator.class);
            Health health = indicator.health(true);
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("circuitBreaker", "CLOSED")
                    .containsEntry("heldLeases", 0)
                    .containsEntry("store", context.getBean(LeaseManager.class).provider().describe());
            assertThat((String) health.getDetails().get("store")).contains("redis");
            RedisLeaseProvider provider = context.getBean(RedisLeaseProvider.class);
            provider.circuitBreaker().transitionToForcedOpenState();
            Health open = indicator.health(true);
            assertThat(open.getStatus()).isEqualTo(Status.DOWN);
            assertThat(open.getDetails()).containsEntry("circuitBreaker", "FORCED_OPEN");
        });
    }

    @Test
    void healthOfTheInMemoryStoreHasNoBreaker() {
        runner.withPropertyValues("fenceguard.lease.store=memory").run(context -> {
            Health health = context.getBean(FenceguardHealthIndicator.class).health(true);
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("store", "in-memory").doesNotContainKey("circuitBreaker");
        });
    }

    @Test
    void theHealthIndicatorCanBeSwitchedOffLikeBootsOwn() {
        runner.withPropertyValues("fenceguard.lease.store=memory", "management.health.fenceguard.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(FenceguardHealthIndicator.class)
                        .hasSingleBean(FenceguardLeaseMetrics.class));
    }

    @Test
    void eachPartBacksOffWithoutItsLibrary() {
        runner.withPropertyValues("fenceguard.lease.store=memory")
                .withClassLoader(new FilteredClassLoader("org.springframework.boot.health"))
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(LeaseManager.class)
                        .doesNotHaveBean("fenceguardHealthIndicator").hasSingleBean(FenceguardLeaseMetrics.class));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(FenceguardLeaseAutoConfiguration.class,
                        FenceguardObservationAutoConfiguration.class))
                .withPropertyValues("fenceguard.lease.store=memory")
                .withClassLoader(new FilteredClassLoader("io.micrometer.core"))
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(LeaseManager.class)
                        .doesNotHaveBean(FenceguardLeaseMetrics.class).hasBean("fenceguardHealthIndicator"));
    }
}
