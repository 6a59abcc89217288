package io.fenceguard.spring.boot.autoconfigure.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.annotation.Fenced;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.test.support.TestServers;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.redisson.spring.starter.RedissonAutoConfigurationV4;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The lease auto-configurations as Boot finds them, through the imports file, beside the Redisson
 * starter's: one RedissonClient, a Redis-backed manager, {@code @Fenced} applied, health registered.
 */
class AutoConfigurationImportsTest {

    /** This module's lease, Redis and observation auto-configurations, as listed in its imports file. */
    private static List<String> leaseAutoConfigurations() {
        List<String> names = new ArrayList<>();
        ImportCandidates.load(AutoConfiguration.class, AutoConfigurationImportsTest.class.getClassLoader())
                .forEach(name -> {
                    if (name.startsWith("io.fenceguard.spring.boot.autoconfigure.core.")
                            || name.startsWith("io.fenceguard.spring.boot.autoconfigure.redis.")
                            || name.startsWith("io.fenceguard.spring.boot.autoconfigure.observation.")) {
                        names.add(name);
                    }
                });
        return names;
    }

    public static class Ledger {
        @Fenced("'ledger:' + #id")
        public Lease post(long id) {
            return LeaseContext.requireValid();
        }
    }

    @Test
    void listsEveryLeaseAutoConfiguration() {
        assertThat(leaseAutoConfigurations()).containsExactlyInAnyOrder(
                FenceguardLeaseAutoConfiguration.class.getName(),
                FenceguardFencedMethodAutoConfiguration.class.getName(),
                FenceguardCacheChoiceAutoConfiguration.class.getName(),
                "io.fenceguard.spring.boot.autoconfigure.observation.FenceguardObservationAutoConfiguration",
                "io.fenceguard.spring.boot.autoconfigure.redis.FenceguardRedisAutoConfiguration");
    }

    @Test
    void aBootAppWithTheRedissonStarterGetsRedisLeasesAndFencedMethods() throws Exception {
        List<Class<?>> classes = new ArrayList<>(List.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
                RedissonAutoConfigurationV4.class));
        for (String name : leaseAutoConfigurations()) {
            classes.add(Class.forName(name));
        }
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(classes.toArray(Class<?>[]::new)))
                .withPropertyValues("spring.data.redis.host=" + TestServers.redis().host(),
                        "spring.data.redis.port=" + TestServers.redis().port(),
                        "fenceguard.redis.key-prefix=fgimports" + System.nanoTime() + ":")
                .withBean(Ledger.class)
                .run(context -> {
                    assertThat(context).hasSingleBean(LeaseManager.class).hasBean("fenceguardHealthIndicator");
                    assertThat(context.getBean(LeaseManager.class).provider()).isInstanceOf(RedisLeaseProvider.class);
                    Lease lease = context.getBean(Ledger.class).post(3);
                    assertThat(lease.resource().value()).isEqualTo("ledger:3");
                    assertThat(lease.isValid()).isFalse();
                });
    }
}
