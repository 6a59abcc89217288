package io.fenceguard.spring.boot.autoconfigure.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.spring.boot.autoconfigure.redis.FenceguardRedisAutoConfiguration;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.test.support.TestRedisson;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The LeaseManager from fenceguard.* properties: when it is made, when it backs off, how bad values fail. */
class FenceguardLeaseAutoConfigurationTest {

    private static final RedissonClient redisson = TestRedisson.shared();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FenceguardRedisAutoConfiguration.class,
                    FenceguardLeaseAutoConfiguration.class))
            .withPropertyValues("fenceguard.redis.key-prefix=fgauto" + System.nanoTime() + ":");

    @Test
    void backsOffWhenDisabledOrWhenTheApplicationHasItsOwn() {
        runner.withBean(RedissonClient.class, () -> redisson).withPropertyValues("fenceguard.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LeaseManager.class)
                        .doesNotHaveBean(LeaseProvider.class));
        try (LeaseManager own = LeaseManager.of(InMemoryLeaseProvider.create())) {
            runner.withBean(RedissonClient.class, () -> redisson).withBean(LeaseManager.class, () -> own)
                    .run(context -> assertThat(context.getBean(LeaseManager.class)).isSameAs(own));
        }
        InMemoryLeaseProvider ownProvider = InMemoryLeaseProvider.create();
        runner.withBean(RedissonClient.class, () -> redisson).withBean(LeaseProvider.class, () -> ownProvider)
                .run(context -> {
                    assertThat(context).doesNotHaveBean(RedisLeaseProvider.class);
                    assertThat(context.getBean(LeaseManager.class).provider()).isSameAs(ownProvider);
                });
    }

    @Test
    void propertyDefaultsAreTheLibraryDefaults() {
        assertThat(new FenceguardProperties().getLease().toLeaseConfig()).usingRecursiveComparison()
                .isEqualTo(LeaseConfig.defaults());
    }

    @Test
    void invalidPropertiesFailStartupNamingTheProperties() {
        runner.withBean(RedissonClient.class, () -> redisson).withPropertyValues("fenceguard.lease.lease-time=0s")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("invalid fenceguard.lease.* properties: leaseTime must be positive"));
        runner.withPropertyValues("fenceguard.lease.store=memory", "fenceguard.lease.client-name=a:b")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("invalid fenceguard.lease.* properties: clientName must be non-blank and without ':'"));
        runner.withPropertyValues("fenceguard.lease.store=memory", "fenceguard.lease.at-risk-share=1.5")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("invalid fenceguard.lease.* properties: atRiskShare must be between 0 and 1"));
        runner.withPropertyValues("fenceguard.lease.store=memory", "fenceguard.lease.at-risk-share=0.25")
                .run(context -> assertThat(context.getBean(LeaseManager.class).config().atRiskShare()).isEqualTo(0.25));
    }
}
