package io.fenceguard.messaging.outbox.amqp;

import io.fenceguard.messaging.MessageHeaders;
import io.fenceguard.messaging.outbox.OutboxMessage;
import io.fenceguard.messaging.outbox.OutboxSender;
import java.time.Duration;
import java.util.Objects;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageDeliveryMode;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

/**
 * Sends outbox messages to the exchange of their destination under their routing key, persistent, with the fence
 * and key headers (and the key as message id), and waits for the broker's publisher confirm up to the timeout: a
 * nack or no confirm in time fails the send, and the row is sent again. The template's connection factory must
 * use simple publisher confirms ({@code CachingConnectionFactory.setPublisherConfirmType(SIMPLE)}, in Spring Boot
 * {@code spring.rabbitmq.publisher-confirm-type=simple}). The header {@value #CONTENT_TYPE} of an outbox message
 * becomes the message's content type.
 */
public final class RabbitOutboxSender implements OutboxSender {

    /** The outbox header that sets the message's content type (such as {@code text/plain}). */
    public static final String CONTENT_TYPE = "content-type";

    private final RabbitTemplate template;
    private final Duration timeout;

    public RabbitOutboxSender(RabbitTemplate template, Duration timeout) {
        this.template = Objects.requireNonNull(template, "template");
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the send timeout is positive, got " + timeout);
        }
        ConnectionFactory connections = template.getConnectionFactory();
        if (connections == null || !connections.isSimplePublisherConfirms()) {
            throw new IllegalArgumentException("the outbox relay waits for RabbitMQ's publisher confirms: give it a"
                    + " RabbitTemplate whose connection factory uses simple publisher confirms"
                    + " (spring.rabbitmq.publisher-confirm-type=simple)");
        }
        this.timeout = timeout;
    }

    @Override
    public void send(OutboxMessage message) {
        MessageProperties properties = new MessageProperties();
        properties.setDeliveryMode(MessageDeliveryMode.PERSISTENT);
        message.headers().forEach((name, value) -> {
            if (name.equalsIgnoreCase(CONTENT_TYPE)) {
                properties.setContentType(value);
            } else {
                properties.setHeader(name, value);
            }
        });
        properties.setHeader(MessageHeaders.FENCE, message.fenceHeader());
        properties.setHeader(MessageHeaders.IDEMPOTENCY_KEY, message.key());
        properties.setMessageId(message.key());
        Message amqp = new Message(message.payload(), properties);
        String routingKey = message.routingKey() == null ? "" : message.routingKey();
        template.invoke(operations -> {
            operations.send(message.destination(), routingKey, amqp);
            // throws AmqpNackReceivedException or AmqpTimeoutException: then the row stays and is sent again
            operations.waitForConfirmsOrDie(timeout.toMillis());
            return null;
        });
    }
}
