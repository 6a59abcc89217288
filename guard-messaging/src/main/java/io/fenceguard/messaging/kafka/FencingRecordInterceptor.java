package io.fenceguard.messaging.kafka;

import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.messaging.MessageAdmission;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
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
        PolledDecisions.Taken decided = PolledDecisions.take(record);
        String source;
        Fence fence;
        if (decided == null) {
            source = PolledDecisions.source(record);
            fence = admission.admitHeaders(headerValues(record), source);
        } else if (decided.decision().admitted()) {
            source = decided.source();
            fence = decided.decision().fence();
        } else {
            throw decided.decision().refusal();
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
        bound.remove();
    }

    private void unbind() {
        LeaseContext.Scope scope = bound.get();
        if (scope != null) {
            // set, not removed: the thread's next record sets it again in place
            bound.set(null);
            scope.close();
        }
    }

    static List<String> headerValues(ConsumerRecord<?, ?> record) {
        return new PolledDecisions.HeaderReader().values(record);
    }

    static String ascii(byte[] value) {
        return new String(value, StandardCharsets.US_ASCII);
    }
}
