package io.fenceguard.messaging.outbox;

/**
 * Sends one outbox message to its broker for the {@link OutboxRelay}: with the application's headers, the
 * {@value io.fenceguard.messaging.MessageHeaders#FENCE} header ({@link OutboxMessage#fenceHeader()}) and the
 * {@value io.fenceguard.messaging.MessageHeaders#IDEMPOTENCY_KEY} header ({@link OutboxMessage#key()}).
 *
 * <p>Returns only once the broker has acknowledged the message (stored it): the relay deletes the row
 * afterwards, so returning early could lose the message. Throws when it cannot tell; the row is then sent
 * again. Implementations: {@code io.fenceguard.messaging.outbox.kafka.KafkaOutboxSender},
 * {@code io.fenceguard.messaging.outbox.amqp.RabbitOutboxSender}.
 */
@FunctionalInterface
public interface OutboxSender {

    void send(OutboxMessage message) throws Exception;
}
