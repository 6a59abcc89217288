package io.fenceguard.messaging.kafka;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.messaging.MessageAdmission;
import io.fenceguard.messaging.MessageAdmission.Decision;
import io.fenceguard.messaging.MessageHeaders;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;

/**
 * The decisions of the consumer thread's last admitted poll, handed from {@link FencingConsumerInterceptor}
 * (inside {@code poll}) to {@link FencingRecordInterceptor} (before each record's listener) on the same thread,
 * and kept for the records that a seek fetches again ({@link FencingBatchInterceptor} too).
 *
 * <p>The decisions are kept per partition in arrays in the poll's offset order rather than in maps keyed by
 * record: the record interceptor asks for them in that order, so most look-ups are one comparison.
 */
final class PolledDecisions {

    private static final ThreadLocal<PolledDecisions> CURRENT = new ThreadLocal<>();

    /** A decision taken for a record, with the record's source as the poll named it. */
    record Taken(Decision decision, String source) {
    }

    /** One partition's records of the poll, in the order they were polled. */
    private static final class Partition {
        final String topic;
        final int partition;
        /** {@code kafka:<topic>-<partition>@}: a record's source is this and its offset. */
        final String sourcePrefix;
        long[] offsets;
        String[] sources;
        /** Decisions not yet taken by the record interceptor ({@code null} once taken). */
        Decision[] pending;
        /** The records this poll admitted, with their own fences; {@code null} for the others. */
        Fence[] admitted;
        int size;
        /** Whether the offsets ascend, as they do in a poll: then a look-up may search them. */
        boolean ascending = true;
        /** Where the next look-up probably is: the record after the last one taken. */
        int next;

        Partition(String topic, int partition, int capacity) {
            this.topic = topic;
            this.partition = partition;
            this.sourcePrefix = "kafka:" + topic + "-" + partition + "@";
            int n = Math.max(capacity, 1);
            offsets = new long[n];
            sources = new String[n];
            pending = new Decision[n];
            admitted = new Fence[n];
        }

        int add(long offset, String source) {
            if (size == offsets.length) {
                int capacity = size * 2;
                offsets = Arrays.copyOf(offsets, capacity);
                sources = Arrays.copyOf(sources, capacity);
                pending = Arrays.copyOf(pending, capacity);
                admitted = Arrays.copyOf(admitted, capacity);
            }
            if (size > 0 && offset <= offsets[size - 1]) {
                ascending = false;
            }
            offsets[size] = offset;
            sources[size] = source;
            return size++;
        }

        /** The slot of {@code offset}, the last one when it was polled twice; negative when it was not polled. */
        int slotOf(long offset) {
            if (next < size && offsets[next] == offset && ascending) {
                return next;
            }
            if (ascending) {
                // a record of the next poll lies after every record of this one: not searched for
                return size == 0 || offset > offsets[size - 1] ? -1 : Arrays.binarySearch(offsets, 0, size, offset);
            }
            for (int i = size - 1; i >= 0; i--) {
                if (offsets[i] == offset) {
                    return i;
                }
            }
            return -1;
        }
    }

    private final Map<TopicPartition, Partition> partitions = new HashMap<>();
    /** The partition of the last look-up: records come partition by partition. */
    private Partition last;
    /** Decisions not yet taken. */
    private int pending;
    /** Per resource the mark this poll left: the highest token it admitted. */
    private final Map<ResourceName, FencingToken> marks = new HashMap<>();

    private Partition partition(String topic, int partition) {
        Partition p = last;
        if (p != null && p.partition == partition && p.topic.equals(topic)) {
            return p;
        }
        p = partitions.get(new TopicPartition(topic, partition));
        if (p != null) {
            last = p;
        }
        return p;
    }

    private Partition partitionForAdding(String topic, int partition) {
        Partition p = partition(topic, partition);
        if (p == null) {
            p = new Partition(topic, partition, 16);
            partitions.put(new TopicPartition(topic, partition), p);
            last = p;
        }
        return p;
    }

    /** The fence this poll admitted {@code record} with, or {@code null}. */
    private Fence admitted(ConsumerRecord<?, ?> record) {
        Partition p = partition(record.topic(), record.partition());
        if (p == null) {
            return null;
        }
        int slot = p.slotOf(record.offset());
        return slot < 0 ? null : p.admitted[slot];
    }

    /**
     * Admits {@code records} in one call of the store and makes the decisions the thread's current ones. A record
     * the thread's previous decisions admitted (fetched again after a seek) is presented at the mark those
     * decisions left for its resource: it passes unless a newer token was admitted since. Answers the decisions
     * in the records' order.
     */
    static List<Decision> admit(MessageAdmission admission, Iterable<? extends ConsumerRecord<?, ?>> records) {
        PolledDecisions before = CURRENT.get();
        CURRENT.remove();   // should this admission fail, the records are admitted one by one
        PolledDecisions decisions = new PolledDecisions();
        int expected = 64;
        if (records instanceof ConsumerRecords<?, ?> poll) {
            // a poll says how many records each partition has: the arrays are made at their size
            expected = Math.max(poll.count(), 1);
            for (TopicPartition tp : poll.partitions()) {
                decisions.partitions.put(tp, new Partition(tp.topic(), tp.partition(), poll.records(tp).size()));
            }
        } else if (records instanceof Collection<?> list) {
            expected = Math.max(list.size(), 1);
        }
        List<MessageAdmission.Delivery> deliveries = new ArrayList<>(expected);
        Partition[] partitionOf = new Partition[expected];
        int[] slotOf = new int[expected];
        Fence[] own = before == null ? null : new Fence[expected];
        HeaderReader headers = new HeaderReader();
        int count = 0;
        for (ConsumerRecord<?, ?> record : records) {
            Partition p = decisions.partitionForAdding(record.topic(), record.partition());
            String source = p.sourcePrefix + record.offset();
            if (count == slotOf.length) {
                partitionOf = Arrays.copyOf(partitionOf, count * 2);
                slotOf = Arrays.copyOf(slotOf, count * 2);
                own = own == null ? null : Arrays.copyOf(own, count * 2);
            }
            partitionOf[count] = p;
            slotOf[count] = p.add(record.offset(), source);
            Fence admittedBefore = before == null ? null : before.admitted(record);
            if (admittedBefore == null) {
                deliveries.add(new MessageAdmission.Delivery(headers.values(record), source));
            } else {
                own[count] = admittedBefore;
                FencingToken mark = before.marks.get(admittedBefore.resource());
                deliveries.add(new MessageAdmission.Delivery(
                        List.of(FenceHeader.of(new Fence(admittedBefore.resource(), mark)).value()), source));
            }
            count++;
        }
        List<Decision> decided = admission.admitAll(deliveries);
        List<Decision> answers = new ArrayList<>(count);
        Fence marked = null;
        for (int i = 0; i < count; i++) {
            Decision decision = decided.get(i);
            Partition p = partitionOf[i];
            int slot = slotOf[i];
            if (decision.admitted()) {
                Fence presented = decision.fence();
                if (own != null && own[i] != null) {
                    decision = new Decision(own[i], null);
                }
                p.admitted[slot] = decision.fence();
                // a run of records of one fence raises the mark once
                if (presented != marked) {
                    decisions.marks.merge(presented.resource(), presented.token(), (a, b) -> b.isNewerThan(a) ? b : a);
                    marked = presented;
                }
            }
            if (p.pending[slot] == null) {
                decisions.pending++;
            }
            p.pending[slot] = decision;
            answers.add(decision);
        }
        CURRENT.set(decisions);
        return answers;
    }

    /** The decision made at poll time for {@code record}, once; {@code null} when none was made. */
    static Taken take(ConsumerRecord<?, ?> record) {
        PolledDecisions decisions = CURRENT.get();
        if (decisions == null || decisions.pending == 0) {
            return null;
        }
        Partition p = decisions.partition(record.topic(), record.partition());
        if (p == null) {
            return null;
        }
        int slot = p.slotOf(record.offset());
        if (slot < 0 || p.pending[slot] == null) {
            return null;
        }
        Decision decision = p.pending[slot];
        p.pending[slot] = null;
        p.next = slot + 1;
        decisions.pending--;
        return new Taken(decision, p.sources[slot]);
    }

    /** Where {@code record} came from, for refusals and the presented lease's holder. */
    static String source(ConsumerRecord<?, ?> record) {
        return "kafka:" + record.topic() + "-" + record.partition() + "@" + record.offset();
    }

    /**
     * Reads the fence header values of a poll's records. Records of one producer's lease carry the same header
     * bytes: a record whose one fence header equals the one before it gets the same values (the same string), so
     * that the admission parses and looks it up once.
     */
    static final class HeaderReader {
        private byte[] lastBytes;
        private List<String> lastValues;

        List<String> values(ConsumerRecord<?, ?> record) {
            byte[] one = null;
            List<String> several = null;
            for (Header header : record.headers()) {
                if (!MessageHeaders.FENCE.equals(header.key()) || header.value() == null) {
                    continue;
                }
                if (one == null && several == null) {
                    one = header.value();
                } else {
                    if (several == null) {
                        several = new ArrayList<>(2);
                        several.add(FencingRecordInterceptor.ascii(one));
                    }
                    several.add(FencingRecordInterceptor.ascii(header.value()));
                }
            }
            if (several != null) {
                return several;
            }
            if (one == null) {
                return List.of();
            }
            if (lastBytes != null && Arrays.equals(one, lastBytes)) {
                return lastValues;
            }
            lastBytes = one;
            lastValues = List.of(FencingRecordInterceptor.ascii(one));
            return lastValues;
        }
    }
}
