package io.fenceguard.messaging.kafka;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.messaging.MessageAdmission;
import io.fenceguard.messaging.MessageAdmission.Decision;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The decisions of the consumer thread's last admitted poll, handed from {@link FencingConsumerInterceptor}
 * (inside {@code poll}) to {@link FencingRecordInterceptor} (before each record's listener) on the same thread,
 * and kept for the records that a seek fetches again ({@link FencingBatchInterceptor} too).
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

    /**
     * Admits {@code records} in one call of the store and makes the decisions the thread's current ones. A record
     * the thread's previous decisions admitted (fetched again after a seek) is presented at the mark those
     * decisions left for its resource: it passes unless a newer token was admitted since. Answers the decisions
     * in the records' order.
     */
    static java.util.List<Decision> admit(MessageAdmission admission, Iterable<? extends ConsumerRecord<?, ?>> records) {
        PolledDecisions before = CURRENT.get();
        CURRENT.remove();   // should this admission fail, the records are admitted one by one
        java.util.List<ConsumerRecord<?, ?>> polled = new java.util.ArrayList<>();
        java.util.List<MessageAdmission.Delivery> deliveries = new java.util.ArrayList<>();
        java.util.List<Fence> own = new java.util.ArrayList<>();
        for (ConsumerRecord<?, ?> record : records) {
            polled.add(record);
            String source = "kafka:" + record.topic() + "-" + record.partition() + "@" + record.offset();
            Fence admittedBefore = before == null ? null : before.admitted.get(Position.of(record));
            own.add(admittedBefore);
            if (admittedBefore == null) {
                deliveries.add(new MessageAdmission.Delivery(FencingRecordInterceptor.headerValues(record), source));
            } else {
                FencingToken mark = before.marks.get(admittedBefore.resource());
                deliveries.add(new MessageAdmission.Delivery(
                        java.util.List.of(FenceHeader.of(new Fence(admittedBefore.resource(), mark)).value()), source));
            }
        }
        java.util.List<Decision> decided = admission.admitAll(deliveries);
        PolledDecisions decisions = new PolledDecisions();
        java.util.List<Decision> answers = new java.util.ArrayList<>(decided.size());
        for (int i = 0; i < polled.size(); i++) {
            Position position = Position.of(polled.get(i));
            Decision decision = decided.get(i);
            if (decision.admitted()) {
                Fence presented = decision.fence();
                Fence fence = own.get(i) != null ? own.get(i) : presented;
                decision = new Decision(fence, null);
                decisions.admitted.put(position, fence);
                decisions.marks.merge(fence.resource(), presented.token(), (a, b) -> b.isNewerThan(a) ? b : a);
            }
            decisions.pending.put(position, decision);
            answers.add(decision);
        }
        CURRENT.set(decisions);
        return answers;
    }

    /** The decision made at poll time for {@code record}, once; {@code null} when none was made. */
    static Decision take(ConsumerRecord<?, ?> record) {
        PolledDecisions decisions = CURRENT.get();
        return decisions == null || decisions.pending.isEmpty() ? null : decisions.pending.remove(Position.of(record));
    }
}
