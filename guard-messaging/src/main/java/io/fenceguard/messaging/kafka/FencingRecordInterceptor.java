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
    /** Per thread, the scope of the lease bound while its record's listener runs. */
    private final ThreadLocal<Bound> bound = ThreadLocal.withInitial(Bound::new);

    public FencingRecordInterceptor(MessageAdmission admission) {
        this.admission = Objects.requireNonNull(admission, "admission");
    }

    @Override
    public ConsumerRecord<K, V> intercept(ConsumerRecord<K, V> record, Consumer<K, V> consumer) {
        // one look-up of the thread's state per record, kept rather than set and cleared per record
        Bound thread = bound.get();
        thread.unbind();
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
        thread.scope = LeaseContext.bind(Lease.presented(fence, source));
        return record;
    }

    @Override
    public void afterRecord(ConsumerRecord<K, V> record, Consumer<K, V> consumer) {
        bound.get().unbind();
    }

    @Override
    public void clearThreadState(Consumer<?, ?> consumer) {
        bound.get().unbind();
        bound.remove();
    }

    /** A thread's bound scope, if any. */
    private static final class Bound {
        LeaseContext.Scope scope;

        void unbind() {
            LeaseContext.Scope bound = scope;
            if (bound != null) {
                scope = null;
                bound.close();
            }
        }
    }

    static List<String> headerValues(ConsumerRecord<?, ?> record) {
        return new PolledDecisions.HeaderReader().values(record);
    }

    static String ascii(byte[] value) {
        return new String(value, StandardCharsets.US_ASCII);
    }
}
