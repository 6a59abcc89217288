package io.fenceguard.messaging.kafka;

import io.fenceguard.messaging.MessageHeaders;
import io.fenceguard.messaging.MessageRefusedException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.FixedBackOff;

/** Spring Kafka wiring for fenced consumers: refused records go to the dead-letter topic at once. */
public final class KafkaFencing {

    private KafkaFencing() {
    }

    /**
     * A {@link DeadLetterPublishingRecoverer} (to {@code <topic>-dlt}, same partition: Spring Kafka's
     * default) that adds the {@code fenceguard-refusal*} headers to refused records.
     */
    public static DeadLetterPublishingRecoverer deadLetterRecoverer(KafkaOperations<?, ?> template) {
        DeadLetterPublishingRecoverer recoverer = new DeadLetterPublishingRecoverer(template);
        addRefusalHeaders(recoverer);
        return recoverer;
    }

    /** Adds the {@code fenceguard-refusal*} headers to what {@code recoverer} publishes for refused records. */
    public static void addRefusalHeaders(DeadLetterPublishingRecoverer recoverer) {
        recoverer.addHeadersFunction(KafkaFencing::refusalHeaders);
    }

    /**
     * A {@link DefaultErrorHandler} that dead-letters refused records without a retry (the same record gets
     * the same answer) and other failures after two retries a second apart.
     */
    public static DefaultErrorHandler errorHandler(KafkaOperations<?, ?> template) {
        return errorHandler(deadLetterRecoverer(template), new FixedBackOff(1000L, 2L));
    }

    /** As {@link #errorHandler(KafkaOperations)}, with the application's recoverer and back-off for other failures. */
    public static DefaultErrorHandler errorHandler(DeadLetterPublishingRecoverer recoverer, BackOff backOff) {
        DefaultErrorHandler handler = new DefaultErrorHandler(recoverer, backOff);
        handler.addNotRetryableExceptions(MessageRefusedException.class);
        return handler;
    }

    static Headers refusalHeaders(ConsumerRecord<?, ?> record, Exception failure) {
        Optional<MessageRefusedException> refused = MessageRefusedException.in(failure);
        if (refused.isEmpty()) {
            return null;
        }
        MessageRefusedException refusal = refused.get();
        RecordHeaders headers = new RecordHeaders();
        headers.add(MessageHeaders.REFUSAL, bytes(refusal.reason().name()));
        headers.add(MessageHeaders.REFUSAL_MESSAGE, bytes(refusal.getMessage()));
        refusal.highWater().ifPresent(hw -> headers.add(MessageHeaders.HIGH_WATER, bytes(String.valueOf(hw.value()))));
        return headers;
    }

    private static byte[] bytes(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }
}
