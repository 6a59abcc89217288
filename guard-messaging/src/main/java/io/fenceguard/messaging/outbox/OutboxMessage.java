package io.fenceguard.messaging.outbox;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.core.Fence;
import java.util.Map;
import java.util.Objects;

/**
 * One committed outbox row as the relay hands it to an {@link OutboxSender}.
 *
 * @param id          the row's id (the relay's order)
 * @param fence       the fence of the lease the business write ran under
 * @param key         the message's unique id, sent as its {@value io.fenceguard.messaging.MessageHeaders#IDEMPOTENCY_KEY}
 * @param destination the Kafka topic or the RabbitMQ exchange (empty: the default exchange)
 * @param routingKey  the RabbitMQ routing key or the Kafka record key; {@code null}: none (Kafka: the resource)
 * @param headers     the application's own headers
 * @param payload     the body
 */
public record OutboxMessage(long id, Fence fence, String key, String destination, String routingKey,
        Map<String, String> headers, byte[] payload) {

    public OutboxMessage {
        Objects.requireNonNull(fence, "fence");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(destination, "destination");
        headers = Map.copyOf(headers);
        Objects.requireNonNull(payload, "payload");
    }

    /** The value of the {@value io.fenceguard.messaging.MessageHeaders#FENCE} header: {@code v1;r=<resource>;t=<token>}. */
    public String fenceHeader() {
        return FenceHeader.of(fence).value();
    }

    @Override
    public String toString() {
        return "OutboxMessage[" + id + " " + key + " to " + destination + (routingKey == null ? "" : "/" + routingKey)
                + " under " + fence + "]";
    }
}
