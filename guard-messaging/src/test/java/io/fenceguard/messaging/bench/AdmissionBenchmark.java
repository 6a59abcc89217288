package io.fenceguard.messaging.bench;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.messaging.MessageAdmission;
import io.fenceguard.messaging.MessageHeaders;
import io.fenceguard.messaging.kafka.FencingConsumerInterceptor;
import io.fenceguard.messaging.kafka.FencingRecordInterceptor;
import io.fenceguard.redis.RedisHighWaterStore;
import io.fenceguard.redis.RedisScriptClient;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.test.support.TestServers;
import io.fenceguard.test.support.bench.BenchDeadline;
import io.fenceguard.test.support.bench.BenchTable;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import org.springframework.kafka.test.utils.ContainerTestUtils;

/**
 * Consumer admission cost per message, against the same consumer without admission in the same run:
 * fenced records on Spring Kafka's embedded broker, consumed by a listener container without the
 * {@link FencingRecordInterceptor} (the anchor), with it on the in-memory high-water store and with it on
 * the Redis store ({@code GUARD_TEST_REDIS_URL}), record by record and per poll (a {@link FencingConsumerInterceptor}
 * admitting each poll, of the consumer's default size, in one call). The per-poll admission's ceiling is the same
 * consumer without admission whose poll makes one call to the Redis server through the same client (a trivial
 * script): what one round trip per poll costs on this machine, whatever the admission does; its row's "vs floor" is
 * the median of the rounds' ceiling time over its own (1.0: the admission costs no more than the round trip).
 * Rounds alternate the variants; each round consumes
 * {@code bench.messaging.records} records and is timed from the first record the listener sees to the last. The
 * first {@code bench.messaging.warmup} rounds are not counted. Each variant's ratio is the median of its rounds'
 * ratios to the anchor's time in the same round: the JIT still compiles round after round, and a ratio within
 * one round compares variants at the same stage of it. Always exits: at the latest after
 * {@code bench.messaging.deadline} seconds, with status 3.
 */
public final class AdmissionBenchmark {

    private static final int RECORDS = Integer.getInteger("bench.messaging.records", 50_000);
    private static final int ROUNDS = Integer.getInteger("bench.messaging.rounds", 4);
    private static final int WARMUP = Integer.getInteger("bench.messaging.warmup", 2);
    private static final int DEADLINE = Integer.getInteger("bench.messaging.deadline", 600);

    /** The Redis store with each poll admitted in one call ({@link FencingConsumerInterceptor}). */
    private static final String BATCHED = "admission, Redis store, per poll";
    /** No admission; each poll makes one call to the Redis server: the per-poll admission's ceiling. */
    private static final String ONE_CALL = "no admission, one Redis call per poll";

    private static final AtomicLong SINGLE_CALLS = new AtomicLong();
    private static final AtomicLong BATCH_CALLS = new AtomicLong();
    private static final AtomicLong BATCH_FENCES = new AtomicLong();
    private static final AtomicLong BATCH_NANOS = new AtomicLong();

    private AdmissionBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        BenchDeadline.after(Duration.ofSeconds(DEADLINE))
                .start(System.err, "messaging benchmark: deadline of %d s passed; stopping%n", DEADLINE);
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

    private static void run() throws Exception {
        EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, 1);
        broker.afterPropertiesSet();
        Config config = new Config();
        config.useSingleServer().setAddress(TestServers.redis().uri());
        RedissonClient redisson = Redisson.create(config);
        String run = UUID.randomUUID().toString().substring(0, 8);
        Map<String, HighWaterStore> variants = new LinkedHashMap<>();
        variants.put("no admission (anchor)", null);
        variants.put(ONE_CALL, null);
        variants.put("admission, in-memory store", InMemoryHighWaterStore.create());
        RedisHighWaterStore redisStore = RedisHighWaterStore.of(RedissonScriptClient.of(redisson), "fg-bench-" + run + ":");
        variants.put("admission, Redis store", redisStore);
        variants.put(BATCHED, new HighWaterStore() {
            @Override
            public io.fenceguard.admission.Admission admit(Fence presented) {
                SINGLE_CALLS.incrementAndGet();
                return redisStore.admit(presented);
            }

            @Override
            public List<io.fenceguard.admission.Admission> admitAll(List<Fence> presented) {
                long start = System.nanoTime();
                try {
                    return redisStore.admitAll(presented);
                } finally {
                    BATCH_NANOS.addAndGet(System.nanoTime() - start);
                    BATCH_CALLS.incrementAndGet();
                    BATCH_FENCES.addAndGet(presented.size());
                }
            }
        });

        storeAlone(redisStore, "account:bench-alone-" + run);

        DefaultKafkaProducerFactory<String, String> producers = new DefaultKafkaProducerFactory<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.LINGER_MS_CONFIG, 5));
        KafkaTemplate<String, String> template = new KafkaTemplate<>(producers);
        Map<String, List<Double>> micros = new LinkedHashMap<>();
        variants.keySet().forEach(name -> micros.put(name, new ArrayList<>()));

        System.out.printf("messaging benchmark: %d records per round, %d rounds (+%d warm-up), variants alternate%n",
                RECORDS, ROUNDS, WARMUP);
        String anchorName = "no admission (anchor)";
        Map<String, List<Double>> ratios = new LinkedHashMap<>();
        variants.keySet().forEach(name -> ratios.put(name, new ArrayList<>()));
        List<Double> ceilingRatios = new ArrayList<>();
        RedissonScriptClient oneCallClient = RedissonScriptClient.of(redisson);
        Runnable oneCall = () -> oneCallClient.eval(ONE_CALL_SCRIPT, RedisScriptClient.Reply.LONG,
                List.of("fg-bench-" + run + ":one-call"), List.of(), 0).toCompletableFuture().join();
        int round = 0;
        for (int r = 1 - WARMUP; r <= ROUNDS; r++) {
            double anchorThisRound = Double.NaN;
            double ceilingThisRound = Double.NaN;
            for (Map.Entry<String, HighWaterStore> variant : variants.entrySet()) {
                String topic = "fg-bench-" + run + "-" + round++;
                broker.addTopics(topic);
                double perRecord = consume(broker, template, topic, variant.getValue(), variant.getKey().equals(BATCHED),
                        variant.getKey().equals(ONE_CALL) ? oneCall : null, "account:bench-" + run);
                if (variant.getKey().equals(anchorName)) {
                    anchorThisRound = perRecord;
                }
                if (variant.getKey().equals(ONE_CALL)) {
                    ceilingThisRound = perRecord;
                }
                if (r > 0) {
                    micros.get(variant.getKey()).add(perRecord);
                    ratios.get(variant.getKey()).add(perRecord / anchorThisRound);
                    if (variant.getKey().equals(BATCHED)) {
                        ceilingRatios.add(ceilingThisRound / perRecord);
                    }
                }
                System.out.printf("  round %d %-34s %8.2f µs/record %6.2f × this round's anchor%s%n", r, variant.getKey(),
                        perRecord, perRecord / anchorThisRound, r <= 0 ? " (warm-up)" : "");
            }
        }
        double anchor = median(micros.get(anchorName));
        System.out.println();
        System.out.println("consumer admission cost per record (median of rounds; same run, same broker; ratio: median of"
                + " the rounds' ratios to their anchor):");
        System.out.printf("%-36s %12s %14s %12s %8s %16s%n", "variant", "µs/record", "records/s", "extra µs", "ratio",
                "rounds' ratios");
        for (Map.Entry<String, List<Double>> e : micros.entrySet()) {
            double m = median(e.getValue());
            List<Double> each = ratios.get(e.getKey());
            double ratio = median(each);
            System.out.printf("%-36s %12.2f %14.0f %12.2f %8.2f %7.2f..%-7.2f%n", e.getKey(), m, 1e6 / m, m - anchor, ratio,
                    each.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN),
                    each.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN));
            BenchTable.row("messaging", "Kafka consumer, " + e.getKey(), m, "µs/record", anchorName, ratio,
                    e.getKey().equals(BATCHED) ? median(ceilingRatios) : Double.NaN);
        }
        System.out.printf("per poll against its ceiling (%s): %.2f (median of the rounds' ceiling time over its own;"
                + " rounds %.2f..%.2f)%n", ONE_CALL, median(ceilingRatios),
                ceilingRatios.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN),
                ceilingRatios.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN));
        if (BATCH_CALLS.get() > 0) {
            System.out.printf("per poll: %d store calls for %d fences (%.0f per call, %.0f µs per call), %d records"
                    + " admitted on their own%n", BATCH_CALLS.get(), BATCH_FENCES.get(),
                    (double) BATCH_FENCES.get() / BATCH_CALLS.get(), BATCH_NANOS.get() / 1e3 / BATCH_CALLS.get(),
                    SINGLE_CALLS.get());
        }
        BenchTable.print();
        producers.destroy();
        redisson.shutdown();
        broker.destroy();
    }

    private static double consume(EmbeddedKafkaKraftBroker broker, KafkaTemplate<String, String> template, String topic,
            HighWaterStore store, boolean perPoll, Runnable callPerPoll, String resource) throws Exception {
        CountDownLatch done = new CountDownLatch(RECORDS);
        AtomicLong first = new AtomicLong();
        AtomicLong last = new AtomicLong();
        ContainerProperties properties = new ContainerProperties(topic);
        properties.setMessageListener((MessageListener<String, String>) record -> {
            long now = System.nanoTime();
            first.compareAndSet(0, now);
            last.set(now);
            done.countDown();
        });
        // the consumer's defaults otherwise: max.poll.records 500
        Map<String, Object> consumerProps = new java.util.HashMap<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString(),
                ConsumerConfig.GROUP_ID_CONFIG, topic,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class));
        if (perPoll) {
            consumerProps.putAll(FencingConsumerInterceptor.configs(MessageAdmission.of(store)));
        }
        if (callPerPoll != null) {
            consumerProps.put(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG, OneCallPerPoll.class.getName());
            consumerProps.put(OneCallPerPoll.CALL_CONFIG, callPerPoll);
        }
        KafkaMessageListenerContainer<String, String> container = new KafkaMessageListenerContainer<>(
                new DefaultKafkaConsumerFactory<>(consumerProps), properties);
        if (store != null) {
            container.setRecordInterceptor(new FencingRecordInterceptor<>(MessageAdmission.of(store)));
        }
        // all records first, so that the consumer is timed alone
        // a token of now, as a clock-floor lease mints it; not below the floor a Redis store set when it started
        long token = System.currentTimeMillis() * 1000;
        if (store instanceof RedisHighWaterStore redisStore) {
            token = Math.max(token, redisStore.floor().map(FencingToken::value).orElse(0L));
        }
        byte[] fence = FenceHeader.of(Fence.of(resource, Long.toString(token))).value()
                .getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < RECORDS; i++) {
            ProducerRecord<String, String> record = new ProducerRecord<>(topic, "record-" + i);
            record.headers().add(MessageHeaders.FENCE, fence);
            template.send(record);
        }
        template.flush();
        container.start();
        ContainerTestUtils.waitForAssignment(container, 1);
        if (!done.await(120, TimeUnit.SECONDS)) {
            container.stop();
            throw new IllegalStateException(done.getCount() + " records of " + RECORDS + " not consumed in 120 s on " + topic);
        }
        container.stop();
        return (last.get() - first.get()) / 1000.0 / (RECORDS - 1);
    }

    /**
     * The Redis store without Kafka: one fence per call against 500 fences of 500 resources in one call (the
     * worst case of a poll: the consumer asks once per run of one fence on one resource).
     */
    private static void storeAlone(RedisHighWaterStore store, String resource) {
        long token = Math.max(System.currentTimeMillis() * 1000, store.floor().map(FencingToken::value).orElse(0L));
        Fence fence = Fence.of(resource, Long.toString(token));
        List<Fence> poll = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            poll.add(Fence.of(resource + "-" + i, Long.toString(token)));
        }
        for (int i = 0; i < 50; i++) {
            store.admit(fence);
            store.admitAll(poll);
        }
        int calls = 200;
        long start = System.nanoTime();
        for (int i = 0; i < calls; i++) {
            store.admit(fence);
        }
        double single = (System.nanoTime() - start) / 1e3 / calls;
        start = System.nanoTime();
        for (int i = 0; i < calls; i++) {
            store.admitAll(poll);
        }
        double batch = (System.nanoTime() - start) / 1e3 / calls;
        System.out.printf("Redis store alone: admit %.1f µs per call; admitAll of 500 resources %.1f µs per call (%.2f µs per fence)%n",
                single, batch, batch / 500);
    }

    /** The script of the ceiling's one call per poll: a read of one key, as an admission reads its mark. */
    private static final String ONE_CALL_SCRIPT = "return redis.call('exists', KEYS[1])";

    /** The ceiling's consumer interceptor: one call to the Redis server per poll, where the admission would be. */
    public static final class OneCallPerPoll<K, V> implements ConsumerInterceptor<K, V> {

        static final String CALL_CONFIG = "fenceguard.bench.call-per-poll";

        private Runnable call;

        @Override
        public void configure(Map<String, ?> configs) {
            call = (Runnable) configs.get(CALL_CONFIG);
        }

        @Override
        public ConsumerRecords<K, V> onConsume(ConsumerRecords<K, V> records) {
            if (!records.isEmpty()) {
                call.run();
            }
            return records;
        }

        @Override
        public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
        }

        @Override
        public void close() {
        }
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
