package io.fenceguard.messaging.kafka;

import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.messaging.MessageAdmission;
import io.fenceguard.messaging.MessageAdmission.Decision;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.springframework.kafka.listener.BatchInterceptor;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;

/**
 * Admits a batch listener's batch with one call of the high-water store ({@link MessageAdmission#admitAll}: one
 * round trip on the Redis store), in the batch's order: per resource the highest token raises the mark and an
 * older one after it is stale. Refused records go to the recoverer (usually {@link KafkaFencing#deadLetterRecoverer}:
 * the dead-letter topic with the reason in headers) and the listener gets the rest; when they all carry one fence,
 * it is bound to {@link LeaseContext} while the listener runs. A batch fetched again after a seek is admitted at
 * the marks it left, as with {@link FencingConsumerInterceptor}. Set it with
 * {@code containerFactory.setBatchInterceptor(...)}.
 *
 * <p>When the recoverer fails, the interceptor throws and the batch goes to the container's error handler.
 */
public class FencingBatchInterceptor<K, V> implements BatchInterceptor<K, V> {

    private final MessageAdmission admission;
    private final ConsumerRecordRecoverer recoverer;
    private final ThreadLocal<LeaseContext.Scope> bound = new ThreadLocal<>();

    public FencingBatchInterceptor(MessageAdmission admission, ConsumerRecordRecoverer recoverer) {
        this.admission = Objects.requireNonNull(admission, "admission");
        this.recoverer = Objects.requireNonNull(recoverer, "recoverer");
    }

    @Override
    public ConsumerRecords<K, V> intercept(ConsumerRecords<K, V> records, Consumer<K, V> consumer) {
        unbind();
        List<ConsumerRecord<K, V>> polled = new ArrayList<>(records.count());
        records.forEach(polled::add);
        List<Decision> decisions = PolledDecisions.admit(admission, polled);
        Map<TopicPartition, List<ConsumerRecord<K, V>>> admitted = new LinkedHashMap<>();
        Set<Fence> fences = new HashSet<>();
        for (int i = 0; i < polled.size(); i++) {
            ConsumerRecord<K, V> record = polled.get(i);
            Decision decision = decisions.get(i);
            if (decision.admitted()) {
                admitted.computeIfAbsent(new TopicPartition(record.topic(), record.partition()), tp -> new ArrayList<>())
                        .add(record);
                fences.add(decision.fence());
            } else {
                recoverer.accept(record, decision.refusal());
            }
        }
        if (admitted.isEmpty()) {
            return null;   // nothing for the listener; the container acknowledges the batch
        }
        if (fences.size() == 1) {
            ConsumerRecord<K, V> first = admitted.values().iterator().next().get(0);
            bound.set(LeaseContext.bind(Lease.presented(fences.iterator().next(),
                    "kafka:" + first.topic() + "-" + first.partition() + "@" + first.offset())));
        }
        return admitted.size() == records.partitions().size() && decisions.stream().allMatch(Decision::admitted)
                ? records : new ConsumerRecords<>(admitted, records.nextOffsets());
    }

    @Override
    public void success(ConsumerRecords<K, V> records, Consumer<K, V> consumer) {
        unbind();
    }

    @Override
    public void failure(ConsumerRecords<K, V> records, Exception exception, Consumer<K, V> consumer) {
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
}
