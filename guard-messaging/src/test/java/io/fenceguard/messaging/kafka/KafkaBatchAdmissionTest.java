package io.fenceguard.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.FenceHeader;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.messaging.CountedHighWaterStore;
import io.fenceguard.messaging.FreshHighWaterStore;
import io.fenceguard.messaging.MessageAdmission;
import io.fenceguard.messaging.MessageHeaders;
import io.fenceguard.messaging.StaleInBatch;
import io.fenceguard.redis.RedisHighWaterStore;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import org.springframework.kafka.test.utils.ContainerTestUtils;

/**
 * A poll admitted in one call of the Redis high-water store (Spring Kafka's embedded broker, the test Redis): a
 * poll with two resources and a stale record; the stale one is dead-lettered with its reason, the others are
 * processed under their own fences, and the store was asked once for the whole poll, never record by record.
 */
class KafkaBatchAdmissionTest {

    private static EmbeddedKafkaKraftBroker broker;

    @BeforeAll
    static void servers() throws Exception {
        broker = new EmbeddedKafkaKraftBroker(1, 1);
        broker.afterPropertiesSet();
    }

    @AfterAll
    static void stopServers() {
        if (broker != null) {
            broker.destroy();
        }
    }

    record Processed(String value, Fence bound) {
    }

    @Test
    void aPollIsAdmittedInOneCallTheStaleRecordIsDeadLetteredAndTheRestProceed() throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String topic = "fg-batch-" + suffix;
        broker.addTopics(topic, topic + "-dlt");
        RedisHighWaterStore redis = FreshHighWaterStore.on("fg-batch-" + suffix + ":");
        CountedHighWaterStore counted = new CountedHighWaterStore(redis);
        AtomicInteger refusals = new AtomicInteger();
        MessageAdmission admission = MessageAdmission.of(counted, refusal -> refusals.incrementAndGet());

        StaleInBatch stale = StaleInBatch.above(redis, suffix);
        DefaultKafkaProducerFactory<String, String> producers = producers();
        KafkaTemplate<String, String> template = new KafkaTemplate<>(producers);
        // all on the topic before the consumer starts: its first poll holds them all
        send(template, topic, stale.messages());

        BlockingQueue<Processed> processed = new LinkedBlockingQueue<>();
        BlockingQueue<ConsumerRecord<String, String>> dead = new LinkedBlockingQueue<>();
        Map<String, Object> consumerProps = new HashMap<>(consumerProps("fg-batch-" + suffix));
        consumerProps.putAll(FencingConsumerInterceptor.configs(admission));
        KafkaMessageListenerContainer<String, String> consumer = container(topic, consumerProps,
                (MessageListener<String, String>) record -> processed.add(new Processed(record.value(),
                        LeaseContext.current().map(Lease::fence).orElse(null))));
        consumer.setRecordInterceptor(new FencingRecordInterceptor<>(admission));
        consumer.setCommonErrorHandler(KafkaFencing.errorHandler(template));
        KafkaMessageListenerContainer<String, String> deadLetters = container(topic + "-dlt",
                consumerProps("fg-batch-dlt-" + suffix), (MessageListener<String, String>) dead::add);
        try {
            consumer.start();
            deadLetters.start();
            ContainerTestUtils.waitForAssignment(consumer, 1);
            ContainerTestUtils.waitForAssignment(deadLetters, 1);

            ConsumerRecord<String, String> deadLetter = assertDeadLettered(dead, StaleInBatch.STALE, stale.highWater());
            assertThat(header(deadLetter, MessageHeaders.REFUSAL_MESSAGE)).contains(stale.r1Old().resource().value(),
                    "older than the high-water mark");

            Map<String, Fence> seen = new HashMap<>();
            for (int i = 0; i < 5; i++) {
                Processed next = processed.poll(30, TimeUnit.SECONDS);
                assertThat(next).as("processed within 30 s").isNotNull();
                seen.put(next.value(), next.bound());
            }
            assertThat(seen).as("each record runs under its own fence")
                    .containsExactlyInAnyOrderEntriesOf(stale.passing());
            assertThat(processed.poll(300, TimeUnit.MILLISECONDS)).isNull();
            assertThat(dead).isEmpty();

            assertThat(counted.singleCalls()).as("no record was admitted on its own").hasValue(0);
            // the first poll in one call: its six records present five fences in a row per resource (r2-b repeats
            // r2-a's fence right after it on its resource: the same answer)
            assertThat(counted.batchSizes().get(0)).as("the first poll, in one call").isEqualTo(5);
            // The error handler seeks past the dead-lettered record; the records after it come again in one more
            // poll, admitted again in one call at the mark the first poll left.
            assertThat(counted.batchSizes()).hasSizeLessThanOrEqualTo(2);
            assertThat(refusals).hasValue(1);
            assertThat(redis.admit(stale.r1New()).outcome()).isEqualTo(Admission.Outcome.CONTINUED);
        } finally {
            consumer.stop();
            deadLetters.stop();
            producers.destroy();
        }
    }

    /** A batch listener's batch: the stale record goes to the dead-letter topic, the listener gets the rest. */
    @Test
    void aBatchListenersBatchIsAdmittedInOneCallAndTheStaleRecordIsDeadLettered() throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String topic = "fg-batch-listener-" + suffix;
        broker.addTopics(topic, topic + "-dlt");
        RedisHighWaterStore redis = FreshHighWaterStore.on("fg-batch-" + suffix + ":");
        CountedHighWaterStore counted = new CountedHighWaterStore(redis);
        StaleInBatch stale = StaleInBatch.above(redis, suffix);
        DefaultKafkaProducerFactory<String, String> producers = producers();
        KafkaTemplate<String, String> template = new KafkaTemplate<>(producers);
        send(template, topic, stale.messages());

        BlockingQueue<String> received = new LinkedBlockingQueue<>();
        AtomicInteger boundBatches = new AtomicInteger();
        BlockingQueue<ConsumerRecord<String, String>> dead = new LinkedBlockingQueue<>();
        ContainerProperties properties = new ContainerProperties(topic);
        properties.setMessageListener((org.springframework.kafka.listener.BatchMessageListener<String, String>) batch -> {
            if (LeaseContext.current().isPresent()) {
                boundBatches.incrementAndGet();
            }
            batch.forEach(record -> received.add(record.value()));
        });
        KafkaMessageListenerContainer<String, String> consumer = new KafkaMessageListenerContainer<>(
                new DefaultKafkaConsumerFactory<>(consumerProps("fg-batch-listener-" + suffix)), properties);
        consumer.setBatchInterceptor(new FencingBatchInterceptor<>(MessageAdmission.of(counted),
                KafkaFencing.deadLetterRecoverer(template)));
        KafkaMessageListenerContainer<String, String> deadLetters = container(topic + "-dlt",
                consumerProps("fg-batch-listener-dlt-" + suffix), (MessageListener<String, String>) dead::add);
        try {
            consumer.start();
            deadLetters.start();
            ContainerTestUtils.waitForAssignment(consumer, 1);
            ContainerTestUtils.waitForAssignment(deadLetters, 1);
            assertDeadLettered(dead, StaleInBatch.STALE, stale.highWater());
            List<String> values = new java.util.ArrayList<>();
            while (values.size() < 5) {
                String next = received.poll(30, TimeUnit.SECONDS);
                assertThat(next).as("received within 30 s").isNotNull();
                values.add(next);
            }
            assertThat(values).containsExactlyElementsOf(StaleInBatch.PASSING);
            assertThat(received.poll(300, TimeUnit.MILLISECONDS)).isNull();
            assertThat(boundBatches).as("several fences: none bound for the batch").hasValue(0);
            assertThat(counted.batchSizes()).as("one call for the batch").containsExactly(5);
            assertThat(counted.singleCalls()).hasValue(0);
        } finally {
            consumer.stop();
            deadLetters.stop();
            producers.destroy();
        }
    }

    /**
     * A record that fails in the listener is fetched again (the error handler's seek) after a newer record of its
     * poll raised its resource's mark: it is admitted again at the mark its poll left and runs under its own
     * fence. Had a newer token been admitted for the resource meanwhile (another instance), it would be stale.
     */
    @Test
    void aRecordFetchedAgainAfterAFailurePassesAtItsPollsMarkUnlessANewerTokenCameSince() throws Exception {
        assertRetry(false);
        assertRetry(true);
    }

    private void assertRetry(boolean newerTokenMeanwhile) throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String topic = "fg-batch-retry-" + suffix;
        broker.addTopics(topic, topic + "-dlt");
        RedisHighWaterStore redis = FreshHighWaterStore.on("fg-batch-" + suffix + ":");
        MessageAdmission admission = MessageAdmission.of(redis);
        long base = redis.floor().map(FencingToken::value).orElseThrow() + 1_000;
        Fence older = Fence.of("account:" + suffix, Long.toString(base + 10));
        Fence newer = Fence.of("account:" + suffix, Long.toString(base + 20));
        Fence newest = Fence.of("account:" + suffix, Long.toString(base + 30));
        DefaultKafkaProducerFactory<String, String> producers = producers();
        KafkaTemplate<String, String> template = new KafkaTemplate<>(producers);
        send(template, topic, List.of(Map.entry("x", older), Map.entry("y", newer)));

        AtomicInteger attempts = new AtomicInteger();
        BlockingQueue<Processed> processed = new LinkedBlockingQueue<>();
        BlockingQueue<ConsumerRecord<String, String>> dead = new LinkedBlockingQueue<>();
        Map<String, Object> consumerProps = new HashMap<>(consumerProps("fg-batch-retry-" + suffix));
        consumerProps.putAll(FencingConsumerInterceptor.configs(admission));
        KafkaMessageListenerContainer<String, String> consumer = container(topic, consumerProps,
                (MessageListener<String, String>) record -> {
                    if (record.value().equals("x") && attempts.incrementAndGet() == 1) {
                        if (newerTokenMeanwhile) {
                            assertThat(redis.admit(newest).outcome()).isEqualTo(Admission.Outcome.CLAIMED);
                        }
                        throw new IllegalStateException("the listener's first try fails");
                    }
                    processed.add(new Processed(record.value(), LeaseContext.current().map(Lease::fence).orElse(null)));
                });
        consumer.setRecordInterceptor(new FencingRecordInterceptor<>(admission));
        consumer.setCommonErrorHandler(KafkaFencing.errorHandler(template));
        KafkaMessageListenerContainer<String, String> deadLetters = container(topic + "-dlt",
                consumerProps("fg-batch-retry-dlt-" + suffix), (MessageListener<String, String>) dead::add);
        try {
            consumer.start();
            deadLetters.start();
            ContainerTestUtils.waitForAssignment(consumer, 1);
            ContainerTestUtils.waitForAssignment(deadLetters, 1);
            if (newerTokenMeanwhile) {
                assertDeadLettered(dead, "x", Long.toString(base + 30));
                ConsumerRecord<String, String> alsoDead = dead.poll(30, TimeUnit.SECONDS);
                assertThat(alsoDead).as("y is behind the newer token too").isNotNull();
                assertThat(alsoDead.value()).isEqualTo("y");
                assertThat(processed.poll(300, TimeUnit.MILLISECONDS)).isNull();
            } else {
                Processed first = processed.poll(30, TimeUnit.SECONDS);
                Processed second = processed.poll(30, TimeUnit.SECONDS);
                assertThat(first).isEqualTo(new Processed("x", older));
                assertThat(second).isEqualTo(new Processed("y", newer));
                assertThat(dead.poll(300, TimeUnit.MILLISECONDS)).isNull();
            }
            assertThat(attempts).hasValue(newerTokenMeanwhile ? 1 : 2);
        } finally {
            consumer.stop();
            deadLetters.stop();
            producers.destroy();
        }
    }

    private static DefaultKafkaProducerFactory<String, String> producers() {
        return new DefaultKafkaProducerFactory<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.LINGER_MS_CONFIG, 50));
    }

    /** Sends each value with its fence in the header, all to partition 0 in this order, and waits until sent. */
    private static void send(KafkaTemplate<String, String> template, String topic,
                             List<Map.Entry<String, Fence>> records) {
        for (Map.Entry<String, Fence> record : records) {
            ProducerRecord<String, String> fenced = new ProducerRecord<>(topic, 0, null, record.getKey());
            fenced.headers().add(MessageHeaders.FENCE,
                    FenceHeader.of(record.getValue()).value().getBytes(StandardCharsets.US_ASCII));
            template.send(fenced);
        }
        template.flush();
    }

    /** The next dead letter: {@code value}, refused as stale at {@code highWater}. */
    private static ConsumerRecord<String, String> assertDeadLettered(BlockingQueue<ConsumerRecord<String, String>> dead,
            String value, String highWater) throws InterruptedException {
        ConsumerRecord<String, String> deadLetter = dead.poll(30, TimeUnit.SECONDS);
        assertThat(deadLetter).as("dead-lettered within 30 s").isNotNull();
        assertThat(deadLetter.value()).isEqualTo(value);
        assertThat(header(deadLetter, MessageHeaders.REFUSAL)).isEqualTo("STALE");
        assertThat(header(deadLetter, MessageHeaders.HIGH_WATER)).isEqualTo(highWater);
        return deadLetter;
    }

    private static Map<String, Object> consumerProps(String group) {
        return Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString(),
                ConsumerConfig.GROUP_ID_CONFIG, group,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    }

    private static KafkaMessageListenerContainer<String, String> container(String topic, Map<String, Object> props,
            MessageListener<String, String> listener) {
        ContainerProperties properties = new ContainerProperties(topic);
        properties.setMessageListener(listener);
        return new KafkaMessageListenerContainer<>(new DefaultKafkaConsumerFactory<>(props), properties);
    }

    private static String header(ConsumerRecord<?, ?> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}
