package io.fenceguard.spring.boot.autoconfigure.outbox;

import io.fenceguard.messaging.outbox.OutboxRelay;
import io.fenceguard.messaging.outbox.OutboxSender;
import io.fenceguard.messaging.outbox.OutboxWriter;
import io.fenceguard.messaging.outbox.amqp.RabbitOutboxSender;
import io.fenceguard.messaging.outbox.kafka.KafkaOutboxSender;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.core.ProducerFactory;

/**
 * The transactional outbox ({@code fenceguard.outbox.enabled=true}): an {@link OutboxWriter} for the application's
 * transactions, an {@link OutboxSender} on the application's RabbitTemplate or Kafka ProducerFactory, and an
 * {@link OutboxRelay} on the DataSource that runs from start-up to shutdown.
 */
@AutoConfiguration(afterName = {"org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration",
        "org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration"})
@ConditionalOnClass(OutboxRelay.class)
@ConditionalOnBooleanProperty(FenceguardOutboxProperties.PREFIX + ".enabled")
@EnableConfigurationProperties(FenceguardOutboxProperties.class)
public class FenceguardOutboxAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    OutboxWriter outboxWriter(FenceguardOutboxProperties properties) {
        return OutboxWriter.of(properties.getTable());
    }

    /** Polls from start-up; stopped before the sender's template and the DataSource are closed. */
    @Bean(initMethod = "start", destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnSingleCandidate(DataSource.class)
    OutboxRelay outboxRelay(DataSource dataSource, ObjectProvider<OutboxSender> senders,
            FenceguardOutboxProperties properties) {
        List<OutboxSender> all = senders.orderedStream().toList();
        if (all.size() != 1) {
            throw new IllegalStateException(FenceguardOutboxProperties.PREFIX + ".enabled=true needs one OutboxSender,"
                    + " found " + all.size() + ": a RabbitTemplate (spring-rabbit) or a Kafka ProducerFactory"
                    + " (spring-kafka) bean, " + FenceguardOutboxProperties.PREFIX + ".broker=rabbit|kafka when the"
                    + " application has both, or an OutboxSender bean of its own");
        }
        return OutboxRelay.builder(dataSource, all.get(0)).table(properties.getTable())
                .batchSize(properties.getBatchSize()).pollInterval(properties.getPollInterval()).build();
    }

    /** RabbitMQ: the application's RabbitTemplate, which must use simple publisher confirms. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({RabbitTemplate.class, RabbitOutboxSender.class})
    @ConditionalOnProperty(name = FenceguardOutboxProperties.PREFIX + ".broker", havingValue = "rabbit", matchIfMissing = true)
    static class Rabbit {

        @Bean
        @ConditionalOnMissingBean(OutboxSender.class)
        @ConditionalOnSingleCandidate(RabbitTemplate.class)
        RabbitOutboxSender rabbitOutboxSender(RabbitTemplate template, FenceguardOutboxProperties properties) {
            return new RabbitOutboxSender(template, properties.getSendTimeout());
        }
    }

    /** Kafka: a template of the relay's own on the application's ProducerFactory (String keys, byte[] values). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({KafkaTemplate.class, KafkaOutboxSender.class})
    @ConditionalOnProperty(name = FenceguardOutboxProperties.PREFIX + ".broker", havingValue = "kafka", matchIfMissing = true)
    static class Kafka {

        @Bean
        @ConditionalOnMissingBean(OutboxSender.class)
        @ConditionalOnSingleCandidate(ProducerFactory.class)
        KafkaOutboxSender kafkaOutboxSender(ProducerFactory<?, ?> producers, FenceguardOutboxProperties properties) {
            return KafkaOutboxSender.of(producers, properties.getSendTimeout());
        }
    }
}
