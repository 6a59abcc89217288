package io.fenceguard.spring.boot.autoconfigure.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.memory.InMemoryLeaseProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Every auto-configuration this module lists in its imports file, read at run time so that later ones are
 * covered too, starts in an application that lacks one optional dependency: each backs off cleanly instead of
 * failing on a class it cannot load. The lease store is the in-memory one, so nothing else is needed to start.
 */
class AutoConfigurationsBackOffTest {

    /** The optional dependencies, by the packages that make them up. */
    static Stream<Arguments> withoutEachOptionalDependency() {
        return Stream.of(
                Arguments.of("nothing", new String[] {}),
                Arguments.of("Jedis", new String[] {"redis.clients.jedis."}),
                Arguments.of("Redisson", new String[] {"org.redisson."}),
                Arguments.of("Lettuce and Spring Data Redis",
                        new String[] {"io.lettuce.", "org.springframework.data.redis."}),
                Arguments.of("Curator", new String[] {"org.apache.curator."}),
                Arguments.of("jetcd", new String[] {"io.etcd.jetcd."}),
                Arguments.of("Hazelcast", new String[] {"com.hazelcast."}),
                Arguments.of("Kafka", new String[] {"org.apache.kafka.", "org.springframework.kafka."}),
                Arguments.of("RabbitMQ and Spring AMQP", new String[] {"com.rabbitmq.", "org.springframework.amqp."}),
                Arguments.of("R2DBC", new String[] {"io.r2dbc."}),
                Arguments.of("Reactor", new String[] {"reactor."}),
                Arguments.of("ShedLock", new String[] {"net.javacrumbs.shedlock."}),
                Arguments.of("Spring Integration", new String[] {"org.springframework.integration."}),
                Arguments.of("Micrometer", new String[] {"io.micrometer."}),
                Arguments.of("Actuator",
                        new String[] {"org.springframework.boot.actuate.", "org.springframework.boot.health."}),
                Arguments.of("Flyway", new String[] {"org.flywaydb."}));
    }

    /** This module's auto-configurations, from its imports file. */
    private static List<Class<?>> autoConfigurations() throws ClassNotFoundException {
        List<Class<?>> classes = new ArrayList<>();
        for (String name : ImportCandidates.load(AutoConfiguration.class,
                AutoConfigurationsBackOffTest.class.getClassLoader())) {
            if (name.startsWith("io.fenceguard.")) {
                classes.add(Class.forName(name));
            }
        }
        return classes;
    }

    @Test
    void readsTheAutoConfigurationsFromTheImportsFile() throws Exception {
        assertThat(autoConfigurations()).contains(FenceguardLeaseAutoConfiguration.class)
                .hasSizeGreaterThan(1);
    }

    @ParameterizedTest(name = "without {0}")
    @MethodSource("withoutEachOptionalDependency")
    void everyAutoConfigurationStartsWithout(String dependency, String[] packages) throws Exception {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(autoConfigurations().toArray(Class<?>[]::new)))
                .withClassLoader(new FilteredClassLoader(packages))
                .withPropertyValues("fenceguard.lease.store=memory")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(LeaseManager.class).provider())
                            .isInstanceOf(InMemoryLeaseProvider.class);
                });
    }
}
