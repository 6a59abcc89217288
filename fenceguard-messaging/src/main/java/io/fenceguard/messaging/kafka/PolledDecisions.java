package io.fenceguard.messaging.kafka;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.messaging.MessageAdmission.Decision;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The decisions of the consumer thread's last admitted poll, handed from {@link FencingConsumerInterceptor}
 * (inside {@code poll}) to {@link FencingRecordInterceptor} (before each record's listener) on the same thread.
 */
final class PolledDecisions {

    private static final ThreadLocal<PolledDecisions> CURRENT = new ThreadLocal<>();

    /** Where a record sits: the same record when a seek fetches it again. */
    record Position(String topic, int partition, long offset) {
        static Position of(ConsumerRecord<?, ?> record) {
            return new Position(record.topic(), record.partition(), record.offset());
        }
    }

    /** Decisions not yet taken by the record interceptor. */
    final Map<Position, Decision> pending = new HashMap<>();
    /** The records this poll admitted, with their own fences. */
    final Map<Position, Fence> admitted = new HashMap<>();
    /** Per resource the mark this poll left: the highest token it admitted. */
    final Map<ResourceName, FencingToken> marks = new HashMap<>();

    static PolledDecisions current() {
        return CURRENT.get();
    }

    static void set(PolledDecisions decisions) {
        CURRENT.set(decisions);
    }

    /** The decision made at poll time for {@code record}, once; {@code null} when none was made. */
    static Decision take(ConsumerRecord<?, ?> record) {
        PolledDecisions decisions = CURRENT.get();
        return decisions == null || decisions.pending.isEmpty() ? null : decisions.pending.remove(Position.of(record));
    }
}
