package io.fenceguard.spring.boot.autoconfigure.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.spring.boot.autoconfigure.redis.FenceguardRedisAutoConfiguration;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.test.support.TestRedisson;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

/**
 * Which lease store the auto-configuration picks: the application's own provider, else Redis when there
 * is a RedissonClient bean, memory only when asked for, else a one-line startup failure.
 */
@ExtendWith(OutputCaptureExtension.class)
class LeaseStoreSelectionTest {

    private static final RedissonClient redisson = TestRedisson.shared();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FenceguardRedisAutoConfiguration.class,
                    FenceguardLeaseAutoConfiguration.class))
            .withPropertyValues("fenceguard.redis.key-prefix=fgselect" + System.nanoTime() + ":");

    @Test
    void autoTakesRedisWhenThereIsARedissonClient() {
        runner.withBean(RedissonClient.class, () -> redisson)
                .run(context -> assertThat(context.getBean(LeaseManager.class).provider())
                        .isInstanceOf(RedisLeaseProvider.class).isSameAs(context.getBean(LeaseProvider.class)));
        runner.withBean(RedissonClient.class, () -> redisson).withPropertyValues("fenceguard.lease.store=redis")
                .run(context -> assertThat(context.getBean(LeaseManager.class).provider())
                        .isInstanceOf(RedisLeaseProvider.class));
    }

    @Test
    void memoryOnlyWhenAskedForAndThenEvenBesideARedissonClient() {
        runner.withBean(RedissonClient.class, () -> redisson).withPropertyValues("fenceguard.lease.store=MEMORY")
                .run(context -> {
                    assertThat(context).doesNotHaveBean(RedisLeaseProvider.class);
                    LeaseManager manager = context.getBean(LeaseManager.class);
                    assertThat(manager.provider()).isInstanceOf(InMemoryLeaseProvider.class);
                    try (Lease lease = manager.acquire("memory:1", Duration.ZERO)) {
                        assertThat(lease.token().value()).isEqualTo(1);
                    }
                });
        runner.withClassLoader(new FilteredClassLoader(RedissonClient.class))
                .withPropertyValues("fenceguard.lease.store=memory")
                .run(context -> assertThat(context.getBean(LeaseManager.class).provider())
                        .isInstanceOf(InMemoryLeaseProvider.class));
    }

    @Test
    void theApplicationsOwnProviderAlwaysWins() {
        InMemoryLeaseProvider own = InMemoryLeaseProvider.create();
        for (String store : new String[] {"auto", "redis", "memory"}) {
            runner.withBean(RedissonClient.class, () -> redisson).withBean("myProvider", LeaseProvider.class, () -> own)
                    .withPropertyValues("fenceguard.lease.store=" + store)
                    .run(context -> {
                        assertThat(context).hasSingleBean(LeaseProvider.class);
                        assertThat(context.getBean(LeaseManager.class).provider()).as(store).isSameAs(own);
                    });
        }
    }

    @Test
    void withoutAnyStoreStartupFailsWithOneLineSayingWhatToAdd() {
        runner.run(context -> {
            assertThat(context).hasFailed();
            NoLeaseStoreException failure = rootOf(context.getStartupFailure());
            assertThat(failure.getMessage()).doesNotContain("\n")
                    .contains("no LeaseProvider bean and no Redis client")
                    .contains("org.springframework.boot:spring-boot-starter-data-redis")
                    .contains("fenceguard.lease.store=memory");
            FailureAnalysis analysis = new NoLeaseStoreFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).isEqualTo(failure.problem() + ".").doesNotContain("\n");
            assertThat(analysis.getAction()).startsWith("Add org.springframework.boot:spring-boot-starter-data-redis")
                    .doesNotContain("\n");
        });
    }

    @Test
    void theFailureNamesWhatIsMissingForEachCase() {
        runner.withPropertyValues("fenceguard.lease.store=redis").run(context -> assertThat(
                rootOf(context.getStartupFailure()).getMessage())
                .startsWith("fenceguard.lease.store=redis but the application has no Redis client:")
                .contains("org.springframework.boot:spring-boot-starter-data-redis").doesNotContain("memory"));
        // no Redisson on the class path (an application on Spring Data Redis): fenceguard-redis is there all the same
        runner.withClassLoader(new FilteredClassLoader("org.redisson")).run(context -> assertThat(
                rootOf(context.getStartupFailure()).getMessage())
                .contains("no LeaseProvider bean and no Redis client").doesNotContain("not on the class path"));
        FilteredClassLoader noRedisModule = new FilteredClassLoader(RedisLeaseProvider.class);
        runner.withClassLoader(noRedisModule).run(context -> assertThat(rootOf(context.getStartupFailure()).getMessage())
                .contains("fenceguard-redis is not on the class path")
                .contains("io.fenceguard:fenceguard-spring-boot-starter").contains("fenceguard.lease.store=memory"));
        runner.withClassLoader(noRedisModule).withPropertyValues("fenceguard.lease.store=redis")
                .run(context -> assertThat(rootOf(context.getStartupFailure()).getMessage())
                        .startsWith("fenceguard.lease.store=redis but fenceguard-redis is not on the class path"));
    }

    @Test
    void anUnknownStoreFailsStartupNamingTheProperty() {
        runner.withBean(RedissonClient.class, () -> redisson).withPropertyValues("fenceguard.lease.store=etcd")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("fenceguard.lease.store").hasStackTraceContaining("etcd"));
    }

    @Test
    void bootReportsTheFailureAsOneLineInsteadOfAStackTrace(CapturedOutput output) {
        SpringApplication application = new SpringApplication(NoStoreApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        try {
            application.run("--spring.main.banner-mode=off");
        } catch (RuntimeException expected) {
            assertThat(rootOf(expected)).isInstanceOf(NoLeaseStoreException.class);
        }
        assertThat(output).contains("APPLICATION FAILED TO START")
                .contains("Description:" + System.lineSeparator() + System.lineSeparator()
                        + "fenceguard has no lease store: no LeaseProvider bean and no Redis client."
                        + System.lineSeparator())
                .contains("Action:" + System.lineSeparator() + System.lineSeparator()
                        + "Add org.springframework.boot:spring-boot-starter-data-redis for leases on Redis (or define a "
                        + "RedisConnectionFactory, a RedissonClient or one Jedis Pool bean), or set "
                        + "fenceguard.lease.store=memory (tests and single-instance applications only)."
                        + System.lineSeparator())
                // No stack trace: Boot shows the analysis instead.
                .doesNotContain("\tat org.springframework");
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({FenceguardRedisAutoConfiguration.class, FenceguardLeaseAutoConfiguration.class})
    static class NoStoreApplication {
    }

    private static NoLeaseStoreException rootOf(Throwable failure) {
        Throwable t = failure;
        while (t != null && !(t instanceof NoLeaseStoreException)) {
            t = t.getCause();
        }
        assertThat(t).as("a NoLeaseStoreException in " + failure).isNotNull();
        return (NoLeaseStoreException) t;
    }
}
