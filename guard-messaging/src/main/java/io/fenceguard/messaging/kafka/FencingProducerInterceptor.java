package io.fenceguard.messaging.kafka;

import io.fenceguard.admission.OutboundFence;
import io.fenceguard.messaging.MessageHeaders;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Puts the fence of the lease bound to the sending thread on every record, in the
 * {@value MessageHeaders#FENCE} header (replacing one already there). A record sent without a lease is
 * left as it is.
 *
 * <p>Register it on Spring Kafka's {@code KafkaTemplate.setProducerInterceptor(...)}: the template calls
 * it on the sending thread and lets its exception through, so a send under a lost lease fails with
 * {@link io.fenceguard.core.LeaseLostException} and nothing is sent. Listed in the producer's
 * {@code interceptor.classes} instead, it stamps records just the same, but the Kafka client only logs
 * what an interceptor throws: a record sent under a lost lease then goes out without a fence, and a fenced
 * consumer refuses it as {@code MISSING}.
 */
public class FencingProducerInterceptor<K, V> implements ProducerInterceptor<K, V> {

    @Override
    public ProducerRecord<K, V> onSend(ProducerRecord<K, V> record) {
        Optional<String> fence = OutboundFence.currentHeaderValue();
        if (fence.isPresent()) {
            record.headers().remove(MessageHeaders.FENCE);
            record.headers().add(MessageHeaders.FENCE, fence.get().getBytes(StandardCharsets.US_ASCII));
        }
        return record;
    }

    @Override
    public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
    }

    @Override
    public void close() {
    }

    @Override
    public void configure(Map<String, ?> configs) {
    }
}
