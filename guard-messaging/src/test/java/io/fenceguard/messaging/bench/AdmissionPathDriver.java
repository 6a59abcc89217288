package io.fenceguard.messaging.bench;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.core.Fence;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.messaging.MessageAdmission;
import io.fenceguard.messaging.MessageHeaders;
import io.fenceguard.messaging.kafka.FencingConsumerInterceptor;
import io.fenceguard.messaging.kafka.FencingRecordInterceptor;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;

/**
 * The admission path's own CPU per record on the consumer thread, without a broker: synthetic polls of
 * {@code bench.driver.poll} records of one partition, each record with one fence header read lazily from buffers
 * as a consumer's fetch leaves it, go through {@link FencingConsumerInterceptor#onConsume} and then, record by
 * record, {@link FencingRecordInterceptor#intercept} and {@code afterRecord}, as a listener container calls them
 * (on the in-memory store): "per-poll"; "poll-time" is its consumer interceptor alone. The same records go record
 * by record through the record interceptor alone (no decisions at poll time): "per-record". The floors: "headers"
 * only reads each record's fence header (what any admission must do: Kafka decodes a header's key and copies its
 * value when first asked); "source" also names the record's source; "floor" also binds a presented lease with that
 * source around the listener, as the record interceptor does. Choose with {@code bench.driver.variants}
 * (comma-separated; all by default). Variants alternate round by round, each on polls made just before they are
 * consumed and not timed; each prints the median of its rounds in ns per record (and the range). Times are wall
 * time, or with {@code bench.driver.clock=cpu} the consumer thread's CPU time, which a machine shared with other
 * work disturbs less. Always exits.
 */
public final class AdmissionPathDriver {

    private static final int POLL = Integer.getInteger("bench.driver.poll", 500);
    private static final int POLLS = Integer.getInteger("bench.driver.polls", 200);
    private static final int ROUNDS = Integer.getInteger("bench.driver.rounds", 30);
    private static final int WARMUP = Integer.getInteger("bench.driver.warmup", 10);
    private static final String VARIANTS = System.getProperty("bench.driver.variants",
            "headers,source,floor,poll-time,per-poll,per-record");
    private static final boolean CPU_CLOCK = "cpu".equals(System.getProperty("bench.driver.clock", "wall"));
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** What the loops compute, printed at the end so that no loop is optimised away. */
    private static long sink;

    private AdmissionPathDriver() {
    }

    public static void main(String[] args) {
        int status = 0;
        try {
            run();
        } catch (Throwable e) {
            e.printStackTrace();
            status = 1;
        }
        System.out.flush();
        Runtime.getRuntime().halt(status);
    }

    private static void run() {
        List<String> variants = List.of(VARIANTS.split(","));
        byte[] fence = FenceHeader.of(Fence.of("account:driver", Long.toString(System.currentTimeMillis() * 1000)))
                .value().getBytes(StandardCharsets.US_ASCII);
        List<List<Double>> perVariant = new ArrayList<>();
        variants.forEach(v -> perVariant.add(new ArrayList<>()));
        long offset = 0;
        System.out.printf("admission path driver: polls of %d records, %d polls per round, %d rounds (+%d warm-up), %s time%n",
                POLL, POLLS, ROUNDS, WARMUP, CPU_CLOCK ? "thread CPU" : "wall");
        for (int r = 1 - WARMUP; r <= ROUNDS; r++) {
            for (int v = 0; v < variants.size(); v++) {
                String topic = "driver-" + variants.get(v);
                Variant variant = switch (variants.get(v)) {
                    case "headers" -> new HeadersOnly();
                    case "floor" -> new Floor(Fence.of("account:driver", "1"), true);
                    case "source" -> new Floor(Fence.of("account:driver", "1"), false);
                    case "per-poll" -> perPoll();
                    case "per-record" -> perRecord();
                    case "poll-time" -> pollTime();
                    default -> throw new IllegalArgumentException("no variant " + variants.get(v));
                };
                long nanos = 0;
                for (int p = 0; p < POLLS; p++) {
                    // each poll made just before it is consumed, as a fetch leaves it in the cache
                    ConsumerRecords<String, String> poll = poll(topic, offset, fence);
                    offset += POLL;
                    long start = now();
                    sink += variant.consume(poll);
                    nanos += now() - start;
                }
                variant.close();
                double ns = (double) nanos / ((long) POLLS * POLL);
                if (r > 0) {
                    perVariant.get(v).add(ns);
                }
            }
        }
        for (int v = 0; v < variants.size(); v++) {
            List<Double> each = perVariant.get(v);
            System.out.printf("  %-12s %8.1f ns/record (median of %d rounds; %.1f..%.1f)%n", variants.get(v),
                    median(each), each.size(), each.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN),
                    each.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN));
        }
        System.out.println("  (checksum " + sink + ")");
    }

    private static long now() {
        return CPU_CLOCK ? THREADS.getCurrentThreadCpuTime() : System.nanoTime();
    }

    private static ConsumerRecords<String, String> poll(String topic, long from, byte[] fence) {
        TopicPartition tp = new TopicPartition(topic, 0);
        byte[] key = MessageHeaders.FENCE.getBytes(StandardCharsets.UTF_8);
        List<ConsumerRecord<String, String>> records = new ArrayList<>(POLL);
        for (int i = 0; i < POLL; i++) {
            // a header as a fetch leaves it: key and value still in the fetched buffer
            RecordHeaders headers = new RecordHeaders(new Header[] {
                    new RecordHeader(ByteBuffer.wrap(key), ByteBuffer.wrap(Arrays.copyOf(fence, fence.length)))});
            records.add(new ConsumerRecord<>(topic, 0, from + i, 0L, TimestampType.CREATE_TIME, -1, 8, null,
                    "record-" + i, headers, Optional.empty()));
        }
        return new ConsumerRecords<>(Map.of(tp, records), Map.of());
    }

    /** One way of consuming polls: answers what its listener saw, so that no work is optimised away. */
    private interface Variant {
        long consume(ConsumerRecords<String, String> poll);

        default void close() {
        }
    }

    /** Reads each record's fence header, as any admission must, and nothing else. */
    private static final class HeadersOnly implements Variant {
        @Override
        public long consume(ConsumerRecords<String, String> poll) {
            long seen = 0;
            for (ConsumerRecord<String, String> record : poll) {
                seen += fenceHeaderBytes(record);
            }
            return seen;
        }
    }

    /** Reads the record's fence headers, as an admission does: the bytes read. */
    private static long fenceHeaderBytes(ConsumerRecord<String, String> record) {
        long seen = 0;
        for (Header header : record.headers()) {
            if (MessageHeaders.FENCE.equals(header.key())) {
                seen += header.value().length;
            }
        }
        return seen;
    }

    /**
     * What any admission of a record must do besides asking the store: read its fence header, name its source
     * and bind a presented lease with that source while the listener runs ({@code lease}; without it, "source":
     * the header and the source alone).
     */
    private record Floor(Fence fence, boolean lease) implements Variant {
        @Override
        public long consume(ConsumerRecords<String, String> poll) {
            long seen = 0;
            for (ConsumerRecord<String, String> record : poll) {
                seen += fenceHeaderBytes(record);
                String source = "kafka:" + record.topic() + "-" + record.partition() + "@" + record.offset();
                if (!lease) {
                    seen += source.length();
                    continue;
                }
                try (LeaseContext.Scope scope = LeaseContext.bind(io.fenceguard.core.Lease.presented(fence, source))) {
                    seen += LeaseContext.current().orElseThrow().token().value() & 1;
                }
            }
            return seen;
        }
    }

    private static Variant perPoll() {
        MessageAdmission admission = MessageAdmission.of(InMemoryHighWaterStore.create());
        FencingConsumerInterceptor<String, String> consumerInterceptor = new FencingConsumerInterceptor<>();
        consumerInterceptor.configure(FencingConsumerInterceptor.configs(admission));
        return new ThroughRecordInterceptor(consumerInterceptor, new FencingRecordInterceptor<>(admission));
    }

    /** The consumer interceptor alone: the per-poll path's work at poll time. */
    private static Variant pollTime() {
        FencingConsumerInterceptor<String, String> consumerInterceptor = new FencingConsumerInterceptor<>();
        consumerInterceptor.configure(FencingConsumerInterceptor.configs(MessageAdmission.of(InMemoryHighWaterStore.create())));
        return poll -> consumerInterceptor.onConsume(poll).count();
    }

    private static Variant perRecord() {
        MessageAdmission admission = MessageAdmission.of(InMemoryHighWaterStore.create());
        return new ThroughRecordInterceptor(null, new FencingRecordInterceptor<>(admission));
    }

    /** A listener container's calls: the consumer interceptor (if any) at poll time, the record interceptor around each record. */
    private record ThroughRecordInterceptor(FencingConsumerInterceptor<String, String> consumerInterceptor,
            FencingRecordInterceptor<String, String> recordInterceptor) implements Variant {
        @Override
        public long consume(ConsumerRecords<String, String> poll) {
            if (consumerInterceptor != null) {
                poll = consumerInterceptor.onConsume(poll);
            }
            long seen = 0;
            for (ConsumerRecord<String, String> record : poll) {
                recordInterceptor.intercept(record, null);
                // the listener: what it sees bound
                seen += LeaseContext.current().orElseThrow().token().value() & 1;
                recordInterceptor.afterRecord(record, null);
            }
            return seen;
        }

        @Override
        public void close() {
            recordInterceptor.clearThreadState(null);
        }
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return n == 0 ? Double.NaN : n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
