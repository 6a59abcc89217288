package io.fenceguard.autoconfigure.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.testsupport.TestServers;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class GuardCoreAutoConfigurationTest {

    private static RedissonClient redisson;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(GuardCoreAutoConfiguration.class));

    @BeforeAll
    static void connect() {
        Config config = new Config();
        config.useSingleServer().setAddress(TestServers.redis().uri());
        redisson = Redisson.create(config);
    }

    @AfterAll
    static void disconnect() {
        redisson.shutdown();
    }

    @Test
    void usesTheApplicationsRedissonClientAndBindsGuardProperties() {
        runner.withBean(RedissonClient.class, () -> redisson)
                .withPropertyValues("guard.lease-time=7s", "guard.lock-delay=250ms", "guard.key-prefix=fgauto:",
                        "guard.client-name=orders", "guard.circuit-breaker.sliding-window-size=20")
                .run(context -> {
                    assertThat(context).hasSingleBean(LeaseManager.class).hasSingleBean(RedissonClient.class);
                    LeaseManager manager = context.getBean(LeaseManager.class);
                    LeaseConfig config = manager.config();
                    assertThat(config.leaseTime()).isEqualTo(Duration.ofSeconds(7));
                    assertThat(config.renewInterval()).isEqualTo(Duration.ofSeconds(7).dividedBy(3));
                    assertThat(config.lockDelay()).isEqualTo(Duration.ofMillis(250));
                    assertThat(manager.clientId()).startsWith("orders-");
                    assertThat(manager.circuitBreaker().getCircuitBreakerConfig().getSlidingWindowSize()).isEqualTo(20);
                    try (Lease lease = manager.acquire("auto:" + System.nanoTime(), Duration.ofSeconds(1))) {
                        assertThat(lease.token().value()).isPositive();
                    }
                });
    }

    @Test
    void consumesTheRedissonStartersClientWithoutCreatingAnother() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration.class,
                        org.redisson.spring.starter.RedissonAutoConfigurationV4.class,
                        GuardCoreAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + TestServers.redis().host(),
                        "spring.data.redis.port=" + TestServers.redis().port())
                .run(context -> {
                    assertThat(context).hasSingleBean(RedissonClient.class).hasSingleBean(LeaseManager.class);
                    try (Lease lease = context.getBean(LeaseManager.class)
                            .acquire("starter:" + System.nanoTime(), Duration.ofSeconds(1))) {
                        assertThat(lease.isValid()).isTrue();
                    }
                });
    }

    @Test
    void recordsLeaseMetricsAndReportsHealth() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(GuardCoreAutoConfiguration.class,
                        GuardObservabilityAutoConfiguration.class))
                .withBean(RedissonClient.class, () -> redisson)
                .withBean(io.micrometer.core.instrument.MeterRegistry.class,
                        io.micrometer.core.instrument.simple.SimpleMeterRegistry::new)
                .run(context -> {
                    LeaseManager manager = context.getBean(LeaseManager.class);
                    var registry = context.getBean(io.micrometer.core.instrument.MeterRegistry.class);
                    String resource = "metrics:" + System.nanoTime();
                    Lease held = manager.acquire(resource, Duration.ofSeconds(1));
                    Thread other = new Thread(() -> {
                        try {
                            manager.acquire(resource, Duration.ofMillis(50));
                        } catch (io.fenceguard.core.LeaseTimeoutException expected) {
                            // counted as not obtained
                        }
                    });
                    other.start();
                    other.join();
                    held.close();
                    assertThat(registry.get("guard.lease.acquire").tag("outcome", "acquired").timer().count())
                            .isEqualTo(1);
                    assertThat(registry.get("guard.lease.acquire").tag("outcome", "not_obtained").timer().count())
                            .isEqualTo(1);
                    var health = context.getBean(GuardHealthIndicator.class).health(true);
                    assertThat(health.getStatus().getCode()).isEqualTo("UP");
                    assertThat(health.getDetails()).containsEntry("circuitBreaker", "CLOSED");
                    manager.circuitBreaker().transitionToForcedOpenState();
                    assertThat(context.getBean(GuardHealthIndicator.class).health(true).getStatus().getCode())
                            .isEqualTo("DOWN");
                });
    }

    @Test
    void circuitBreakerComesFromTheRegistryWhenThereIsOne() {
        CircuitBreakerRegistry registry = CircuitBreakerRegistry.ofDefaults();
        runner.withBean(RedissonClient.class, () -> redisson)
                .withBean(CircuitBreakerRegistry.class, () -> registry)
                .run(context -> {
                    LeaseManager manager = context.getBean(LeaseManager.class);
                    assertThat(registry.getAllCircuitBreakers()).contains(manager.circuitBreaker());
                });
    }

    @Test
    void backsOffWithoutRedissonWhenDisabledOrWhenTheApplicationHasItsOwn() {
        runner.run(context -> assertThat(context).doesNotHaveBean(LeaseManager.class));
        runner.withBean(RedissonClient.class, () -> redisson).withPropertyValues("guard.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(LeaseManager.class));
        LeaseManager own = LeaseManager.of(redisson);
        runner.withBean(RedissonClient.class, () -> redisson).withBean(LeaseManager.class, () -> own)
                .run(context -> assertThat(context.getBean(LeaseManager.class)).isSameAs(own));
        own.close();
    }

    @Test
    void propertyDefaultsAreTheLibraryDefaults() {
        LeaseConfig fromProperties = new GuardProperties().toLeaseConfig();
        LeaseConfig library = LeaseConfig.defaults();
        assertThat(fromProperties).usingRecursiveComparison().isEqualTo(library);
    }

    @Test
    void invalidPropertiesFailStartupWithTheReason() {
        runner.withBean(RedissonClient.class, () -> redisson).withPropertyValues("guard.lease-time=0s")
                .run(context -> assertThat(context).hasFailed()
                        .getFailure().rootCause().hasMessageContaining("leaseTime must be positive"));
    }
}
