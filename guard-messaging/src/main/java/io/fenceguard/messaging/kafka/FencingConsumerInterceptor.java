package io.fenceguard.messaging.kafka;

import io.fenceguard.messaging.MessageAdmission;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Admits a consumer's whole poll with one call of the high-water store ({@link MessageAdmission#admitAll}: one
 * round trip on the Redis store) instead of one per record. It changes no record: the decisions wait, on the
 * consumer's thread, for the {@link FencingRecordInterceptor}, which lets admitted records through with their
 * fences bound and throws the refusal of a refused one (dead-lettered with the reason by
 * {@link KafkaFencing#errorHandler}), exactly as if it had admitted the record itself. Records it has no decision
 * for are admitted one by one as before.
 *
 * <p>Kafka creates it from the consumer's configuration ({@link #configs}). Records are admitted in the poll's
 * order, which is the order they are processed in: per resource the highest token of the poll raises the mark,
 * and an older token after a newer one is stale. Admission happens before the poll's first record is processed,
 * so a record fetched again after a seek (the error handler's, after a failure) is admitted again against the
 * mark the poll left: it passes while no newer token has been admitted for its resource since.
 */
public class FencingConsumerInterceptor<K, V> implements ConsumerInterceptor<K, V> {

    /** The consumer configuration entry holding the {@link MessageAdmission} (an object, not a class name). */
    public static final String ADMISSION_CONFIG = "fenceguard.message-admission";

    private MessageAdmission admission;

    /**
     * The entries to add to the consumer's configuration ({@code DefaultKafkaConsumerFactory#updateConfigs}, or
     * Boot's {@code spring.kafka.consumer.properties} map): this class as the interceptor and {@code admission}.
     * An application with interceptors of its own lists this one among them.
     */
    public static Map<String, Object> configs(MessageAdmission admission) {
        return Map.of(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG, FencingConsumerInterceptor.class.getName(),
                ADMISSION_CONFIG, Objects.requireNonNull(admission, "admission"));
    }

    /**
     * {@link #configs(MessageAdmission)} for a consumer already configured with {@code interceptors} (the value of its
     * {@code interceptor.classes}: a class, a class name, a comma-separated list, or a list of either; {@code null}
     * for none): those stay, in their order, and this one is added after them unless already listed.
     */
    public static Map<String, Object> configs(MessageAdmission admission, Object interceptors) {
        List<Object> classes = new ArrayList<>();
        if (interceptors instanceof Collection<?> list) {
            classes.addAll(list);
        } else if (interceptors instanceof String names) {
            for (String name : names.split(",")) {
                if (!name.isBlank()) {
                    classes.add(name.trim());
                }
            }
        } else if (interceptors != null) {
            classes.add(interceptors);
        }
        boolean listed = classes.stream().anyMatch(c -> c == FencingConsumerInterceptor.class
                || FencingConsumerInterceptor.class.getName().equals(c));
        if (!listed) {
            classes.add(FencingConsumerInterceptor.class);
        }
        return Map.of(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG, List.copyOf(classes),
                ADMISSION_CONFIG, Objects.requireNonNull(admission, "admission"));
    }

    @Override
    public void configure(Map<String, ?> configs) {
        Object configured = configs.get(ADMISSION_CONFIG);
        if (!(configured instanceof MessageAdmission messageAdmission)) {
            throw new IllegalArgumentException(getClass().getSimpleName() + " needs a MessageAdmission under '"
                    + ADMISSION_CONFIG + "' in the consumer's configuration, got " + configured);
        }
        this.admission = messageAdmission;
    }

    @Override
    public ConsumerRecords<K, V> onConsume(ConsumerRecords<K, V> records) {
        if (records.isEmpty()) {
            return records;
        }
        PolledDecisions.admit(admission, records);
        return records;
    }

    @Override
    public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
    }

    @Override
    public void close() {
    }
}
