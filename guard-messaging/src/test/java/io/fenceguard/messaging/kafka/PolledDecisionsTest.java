package io.fenceguard.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.messaging.MessageAdmission;
import io.fenceguard.messaging.MessageAdmission.Decision;
import io.fenceguard.messaging.MessageHeaders;
import io.fenceguard.messaging.MessageRefusedException;
import io.fenceguard.messaging.MessageRefusedException.Reason;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A poll's decisions as the record interceptor takes them, without a broker: each record gets its own decision and
 * its own source, once, in whatever order and from whichever partition it is asked for.
 */
class PolledDecisionsTest {

    private final MessageAdmission admission = MessageAdmission.of(InMemoryHighWaterStore.create());
    private final FencingRecordInterceptor<String, String> interceptor = new FencingRecordInterceptor<>(admission);

    @AfterEach
    void clear() {
        interceptor.clearThreadState(null);
        PolledDecisions.admit(admission, List.of());   // no decisions left for the next test on this thread
    }

    @Test
    void eachRecordTakesItsOwnDecisionOnceWithItsOwnSource() {
        // two partitions interleaved, runs of one header, a stale record after a newer one, an unfenced record
        List<ConsumerRecord<String, String>> poll = List.of(
                record("orders", 0, 10, "v1;r=account:1;t=5"),
                record("orders", 1, 3, "v1;r=account:1;t=5"),
                record("orders", 0, 11, "v1;r=account:1;t=6"),
                record("orders", 1, 4, "v1;r=account:1;t=5"),
                record("orders", 0, 12, "v1;r=account:1;t=6"),
                record("orders", 1, 5),
                record("orders", 0, 13, "v1;r=account:2;t=1"));
        List<Decision> decisions = PolledDecisions.admit(admission, poll);
        assertThat(decisions).extracting(d -> d.admitted() ? "ok" : d.refusal().reason().name())
                .containsExactly("ok", "ok", "ok", "STALE", "ok", "MISSING", "ok");
        assertThat(decisions.get(3).refusal().getMessage()).contains("kafka:orders-1@4", "older than", "6");
        assertThat(decisions.get(5).refusal().getMessage()).contains("kafka:orders-1@5");

        // taken backwards: each still finds its own
        for (int i = poll.size() - 1; i >= 0; i--) {
            ConsumerRecord<String, String> record = poll.get(i);
            PolledDecisions.Taken taken = PolledDecisions.take(record);
            assertThat(taken.decision()).as(record.toString()).isEqualTo(decisions.get(i));
            assertThat(taken.source()).isEqualTo("kafka:orders-" + record.partition() + "@" + record.offset());
            assertThat(PolledDecisions.take(record)).as("taken once").isNull();
        }
        assertThat(PolledDecisions.take(record("orders", 0, 14, "v1;r=account:1;t=6"))).isNull();
        assertThat(PolledDecisions.take(record("payments", 0, 10, "v1;r=account:1;t=6"))).isNull();
    }

    @Test
    void aConsumersPollIsDecidedPartitionByPartition() {
        TopicPartition first = new TopicPartition("orders", 0);
        TopicPartition second = new TopicPartition("orders", 1);
        List<ConsumerRecord<String, String>> firstRecords = List.of(
                record("orders", 0, 20, "v1;r=account:1;t=3"), record("orders", 0, 21, "v1;r=account:1;t=3"));
        List<ConsumerRecord<String, String>> secondRecords = List.of(
                record("orders", 1, 7, "v1;r=account:1;t=2"), record("orders", 1, 8, "v1;r=account:2;t=2"));
        Map<TopicPartition, List<ConsumerRecord<String, String>>> byPartition = new LinkedHashMap<>();
        byPartition.put(first, firstRecords);
        byPartition.put(second, secondRecords);
        ConsumerRecords<String, String> poll = new ConsumerRecords<>(byPartition, Map.of());
        List<Decision> decisions = PolledDecisions.admit(admission, poll);
        assertThat(decisions).extracting(Decision::admitted).containsExactly(true, true, false, true);
        assertThat(PolledDecisions.take(secondRecords.get(0)).decision().refusal().getMessage())
                .contains("kafka:orders-1@7");
        assertThat(PolledDecisions.take(firstRecords.get(1)).source()).isEqualTo("kafka:orders-0@21");
        assertThat(PolledDecisions.take(secondRecords.get(1)).decision().fence()).isEqualTo(Fence.of("account:2", "2"));
        assertThat(PolledDecisions.take(firstRecords.get(0)).decision().fence()).isEqualTo(Fence.of("account:1", "3"));
    }

    @Test
    void offsetsOutOfOrderAreFoundToo() {
        List<ConsumerRecord<String, String>> poll = List.of(
                record("orders", 0, 7, "v1;r=account:1;t=2"),
                record("orders", 0, 5, "v1;r=account:1;t=1"),
                record("orders", 0, 6, "v1;r=account:1;t=3"));
        List<Decision> decisions = PolledDecisions.admit(admission, poll);
        assertThat(decisions).extracting(Decision::admitted).containsExactly(true, false, true);
        assertThat(PolledDecisions.take(poll.get(1)).decision().refusal().reason()).isEqualTo(Reason.STALE);
        assertThat(PolledDecisions.take(poll.get(2)).decision().fence()).isEqualTo(Fence.of("account:1", "3"));
        assertThat(PolledDecisions.take(poll.get(0)).decision().fence()).isEqualTo(Fence.of("account:1", "2"));
    }

    @Test
    void theInterceptorBindsThePolledFenceAndThrowsThePolledRefusal() {
        ConsumerRecord<String, String> fresh = record("orders", 0, 1, "v1;r=account:1;t=9");
        ConsumerRecord<String, String> stale = record("orders", 0, 2, "v1;r=account:1;t=8");
        ConsumerRecord<String, String> notPolled = record("orders", 0, 3, "v1;r=account:1;t=9");
        PolledDecisions.admit(admission, List.of(fresh, stale));

        interceptor.intercept(fresh, null);
        Lease bound = LeaseContext.current().orElseThrow();
        assertThat(bound.fence()).isEqualTo(Fence.of("account:1", "9"));
        assertThat(bound.holder()).isEqualTo("presented:kafka:orders-0@1");
        interceptor.afterRecord(fresh, null);
        assertThat(LeaseContext.current()).isEmpty();

        assertThatThrownBy(() -> interceptor.intercept(stale, null))
                .isInstanceOfSatisfying(MessageRefusedException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.STALE);
                    assertThat(e.getMessage()).contains("kafka:orders-0@2");
                });
        assertThat(LeaseContext.current()).isEmpty();

        // a record the poll did not decide is admitted on its own
        interceptor.intercept(notPolled, null);
        assertThat(LeaseContext.current().orElseThrow().holder()).isEqualTo("presented:kafka:orders-0@3");
        interceptor.afterRecord(notPolled, null);
        assertThat(LeaseContext.all()).isEmpty();
    }

    @Test
    void severalFenceHeadersAreMalformedAndTheirValuesKept() {
        ConsumerRecord<String, String> two = record("orders", 0, 1, "v1;r=account:1;t=1", "v1;r=account:1;t=2");
        assertThat(FencingRecordInterceptor.headerValues(two))
                .containsExactly("v1;r=account:1;t=1", "v1;r=account:1;t=2");
        assertThat(PolledDecisions.admit(admission, List.of(two)).get(0).refusal().reason())
                .isEqualTo(Reason.MALFORMED);
    }

    private static ConsumerRecord<String, String> record(String topic, int partition, long offset, String... fences) {
        RecordHeaders headers = new RecordHeaders();
        headers.add("other", "x".getBytes(StandardCharsets.US_ASCII));
        for (String fence : fences) {
            headers.add(MessageHeaders.FENCE, fence.getBytes(StandardCharsets.US_ASCII));
        }
        return new ConsumerRecord<>(topic, partition, offset, 0L, TimestampType.CREATE_TIME, 0, 0, null, "value",
                headers, Optional.empty());
    }
}
