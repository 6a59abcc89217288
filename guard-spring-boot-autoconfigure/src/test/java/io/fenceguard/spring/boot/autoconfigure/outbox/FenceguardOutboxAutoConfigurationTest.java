package io.fenceguard.spring.boot.autoconfigure.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Fence;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.messaging.MessageHeaders;
import io.fenceguard.messaging.outbox.OutboxRelay;
import io.fenceguard.messaging.outbox.OutboxWriter;
import io.fenceguard.messaging.outbox.amqp.RabbitOutboxSender;
import io.fenceguard.test.support.TestServers;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The outbox auto-configuration with Boot's RabbitMQ auto-configuration on the real broker (skipped with the reason
 * without one) and the outbox table on H2 (fenceguard's H2 migrations): off unless enabled; enabled, its relay runs
 * from start-up and sends a committed row with its fence and key; without confirms or a sender it does not start.
 */
class FenceguardOutboxAutoConfigurationTest {

    private final String suffix = UUID.randomUUID().toString().substring(0, 8);
    private final String queue = "fg-outbox-auto-" + suffix;

    @Configuration(proxyBeanMethods = false)
    static class Database {

        @Bean
        DataSource dataSource(org.springframework.core.env.Environment env) {
            JdbcDataSource h2 = new JdbcDataSource();
            h2.setURL("jdbc:h2:mem:" + env.getProperty("test.db") + ";DB_CLOSE_DELAY=-1");
            FenceguardMigrations.migrate(h2);
            return h2;
        }

        @Bean
        Queue outboxQueue(org.springframework.core.env.Environment env) {
            return QueueBuilder.nonDurable(env.getProperty("test.queue")).autoDelete().build();
        }
    }

    private ApplicationContextRunner runner() {
        URI rabbit = TestServers.rabbitmq();
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RabbitAutoConfiguration.class, FenceguardOutboxAutoConfiguration.class))
                .withUserConfiguration(Database.class)
                .withPropertyValues("spring.rabbitmq.addresses=" + rabbit, "test.db=outbox_" + suffix, "test.queue=" + queue);
    }

    @Test
    void offUnlessEnabled() {
        runner().run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(OutboxWriter.class).doesNotHaveBean(OutboxRelay.class);
        });
    }

    @Test
    void enabledTheRelaySendsACommittedRowWithItsFenceAndKey() {
        runner().withPropertyValues("fenceguard.outbox.enabled=true", "spring.rabbitmq.publisher-confirm-type=simple",
                "fenceguard.outbox.poll-interval=100ms").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(RabbitOutboxSender.class).hasSingleBean(OutboxRelay.class);
            OutboxWriter writer = context.getBean(OutboxWriter.class);
            try (Connection c = context.getBean(DataSource.class).getConnection()) {
                c.setAutoCommit(false);
                writer.append(c, Fence.of("order:" + suffix, "42"), "key-" + suffix, "", queue,
                        "placed".getBytes(StandardCharsets.UTF_8), Map.of("content-type", "text/plain"));
                c.commit();
            }
            Message received = context.getBean(RabbitTemplate.class).receive(queue, 30_000);
            assertThat(received).as("relayed within 30 s").isNotNull();
            assertThat(new String(received.getBody(), StandardCharsets.UTF_8)).isEqualTo("placed");
            assertThat(received.getMessageProperties().<Object>getHeader(MessageHeaders.FENCE))
                    .hasToString("v1;r=order:" + suffix + ";t=42");
            assertThat(received.getMessageProperties().<Object>getHeader(MessageHeaders.IDEMPOTENCY_KEY))
                    .hasToString("key-" + suffix);
        });
    }

    @Test
    void withoutPublisherConfirmsOrWithoutASenderItDoesNotStart() {
        runner().withPropertyValues("fenceguard.outbox.enabled=true").run(context -> assertThat(context).getFailure()
                .rootCause().hasMessageContaining("publisher-confirm-type=simple"));
        runner().withPropertyValues("fenceguard.outbox.enabled=true", "fenceguard.outbox.broker=kafka")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("fenceguard.outbox.enabled=true needs one OutboxSender, found 0"));
    }

    @Test
    void everyOutboxPropertyHasADescriptionAndADefaultAndTheAutoConfigurationIsListed() throws Exception {
        Map<String, ConfigurationMetadataProperty> properties = new TreeMap<>();
        try (InputStream json = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(json).isNotNull();
            ConfigurationMetadataRepositoryJsonBuilder.create(json).build().getAllProperties().forEach((name, property) -> {
                if (name.startsWith(FenceguardOutboxProperties.PREFIX + ".")) {
                    properties.put(name, property);
                }
            });
        }
        assertThat(properties).containsOnlyKeys("fenceguard.outbox.enabled", "fenceguard.outbox.table",
                "fenceguard.outbox.broker", "fenceguard.outbox.batch-size", "fenceguard.outbox.poll-interval",
                "fenceguard.outbox.send-timeout");
        assertThat(properties.values()).allSatisfy(property -> {
            assertThat(property.getDescription()).as(property.getId()).isNotBlank();
            assertThat(property.getDefaultValue()).as(property.getId()).isNotNull();
        });
        assertThat(properties.get("fenceguard.outbox.enabled").getDefaultValue()).isEqualTo(false);
        assertThat(properties.get("fenceguard.outbox.table").getDefaultValue()).isEqualTo(OutboxWriter.DEFAULT_TABLE);
        assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()))
                .contains(FenceguardOutboxAutoConfiguration.class.getName());
    }
}
