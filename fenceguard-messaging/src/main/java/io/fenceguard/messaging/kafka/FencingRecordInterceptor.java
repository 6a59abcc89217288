package io.fenceguard.messaging.kafka;

import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.messaging.MessageAdmission;
import io.fenceguard.messaging.MessageHeaders;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.springframework.kafka.listener.RecordInterceptor;

/**
 * Admits a record to the listener only with a current fence, then binds the admitted fence to
 * {@link LeaseContext} as a presented lease while the listener runs, so the consumer's own SQL writes and
 * outgoing messages carry the producer's token.
 *
 * <p>A refused record makes {@link #intercept} throw {@link io.fenceguard.messaging.MessageRefusedException};
 * the container hands it to its error handler, which should be {@link KafkaFencing#errorHandler}: not
 * retried, published to the dead-letter topic with the reason in headers. Set it with
 * {@code containerFactory.setRecordInterceptor(...)} (or {@code container.setRecordInterceptor(...)}).
 *
 * <p>With a {@link FencingConsumerInterceptor} on the consumer, a record's admission was decided with the rest of
 * its poll in one call of the store; this interceptor then applies that decision instead of asking the store.
 */
public class FencingRecordInterceptor<K, V> implements RecordInterceptor<K, V> {

    private final MessageAdmission admission;
    private final ThreadLocal<LeaseContext.Scope> bound = new ThreadLocal<>();

    public FencingRecordInterceptor(MessageAdmission admission) {
        this.admission = Objects.requireNonNull(admission, "admission");
    }

    @Override
    public ConsumerRecord<K, V> intercept(ConsumerRecord<K, V> record, Consumer<K, V> consumer) {
        unbind();
        String source = "kafka:" + record.topic() + "-" + record.partition() + "@" + record.offset();
        MessageAdmission.Decision decided = PolledDecisions.take(record);
        Fence fence;
        if (decided == null) {
            fence = admission.admitHeaders(headerValues(record), source);
        } else if (decided.admitted()) {
            fence = decided.fence();
        } else {
            throw decided.refusal();
        }
        bound.set(LeaseContext.bind(Lease.presented(fence, source)));
        return record;
    }

    @Override
    public void afterRecord(ConsumerRecord<K, V> record, Consumer<K, V> consumer) {
        unbind();
    }

    @Override
    public void clearThreadState(Consumer<?, ?> consumer) {
        unbind();
    }

    private void unbind() {
        LeaseContext.Scope scope = bound.get();
        if (scope != null) {
            bound.remove();
            scope.close();
        }
    }

    static List<String> headerValues(ConsumerRecord<?, ?> record) {
        List<String> values = new ArrayList<>(1);
        for (Header header : record.headers().headers(MessageHeaders.FENCE)) {
            if (header.value() != null) {
                values.add(new String(header.value(), StandardCharsets.US_ASCII));
            }
        }
        return values;
    }
}
