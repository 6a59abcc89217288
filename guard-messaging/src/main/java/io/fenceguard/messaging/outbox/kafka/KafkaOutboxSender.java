package io.fenceguard.messaging.outbox.kafka;

import io.fenceguard.messaging.MessageHeaders;
import io.fenceguard.messaging.outbox.OutboxMessage;
import io.fenceguard.messaging.outbox.OutboxSender;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.core.ProducerFactory;

/**
 * Sends outbox messages as Kafka records to the topic of their destination, keyed by their routing key or else
 * their resource (so that one resource's messages keep one partition's order), with the fence and key headers,
 * and waits for the broker's acknowledgement (the producer's {@code acks}, {@code all} by default) up to the
 * timeout. Give it a template whose producer serializes {@code String} keys and {@code byte[]} values.
 */
public final class KafkaOutboxSender implements OutboxSender {

    private final KafkaOperations<String, byte[]> template;
    private final Duration timeout;

    public KafkaOutboxSender(KafkaOperations<String, byte[]> template, Duration timeout) {
        this.template = Objects.requireNonNull(template, "template");
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the send timeout is positive, got " + timeout);
        }
        this.timeout = timeout;
    }

    /**
     * A sender on a template of its own over {@code producers}' configuration, with {@code String} keys and
     * {@code byte[]} values whatever the application's serializers (the configuration's serializer classes are
     * overridden; serializer instances set on the factory itself are not).
     */
    @SuppressWarnings("unchecked")
    public static KafkaOutboxSender of(ProducerFactory<?, ?> producers, Duration timeout) {
        Objects.requireNonNull(producers, "producers");
        KafkaTemplate<String, byte[]> template = new KafkaTemplate<>((ProducerFactory<String, byte[]>) producers,
                Map.of(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class));
        return new KafkaOutboxSender(template, timeout);
    }

    @Override
    public void send(OutboxMessage message) throws Exception {
        RecordHeaders headers = new RecordHeaders();
        message.headers().forEach((name, value) -> headers.add(name, value.getBytes(StandardCharsets.UTF_8)));
        headers.add(MessageHeaders.FENCE, message.fenceHeader().getBytes(StandardCharsets.US_ASCII));
        headers.add(MessageHeaders.IDEMPOTENCY_KEY, message.key().getBytes(StandardCharsets.UTF_8));
        String key = message.routingKey() != null ? message.routingKey() : message.fence().resource().value();
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(message.destination(), null, key,
                message.payload(), headers);
        template.send(record).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
}
