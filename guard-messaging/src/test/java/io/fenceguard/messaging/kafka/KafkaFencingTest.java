package io.fenceguard.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseLostException;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.messaging.FreshHighWaterStore;
import io.fenceguard.messaging.Ledger;
import io.fenceguard.messaging.MessageAdmission;
import io.fenceguard.messaging.MessageHeaders;
import io.fenceguard.messaging.PausableLeases;
import io.fenceguard.test.support.faults.PausableLeaseProvider;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
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
 * Kafka on Spring Kafka's embedded broker, leases and high-water marks on Redis, the consumer's writes on
 * PostgreSQL: producers stamp the lease's fence, the consumer admits current fences and writes under them,
 * and stale, missing or malformed fences go to the dead-letter topic once, with the reason in headers.
 */
class KafkaFencingTest {

    private static EmbeddedKafkaKraftBroker broker;
    private static Ledger ledger;

    private final String suffix = UUID.randomUUID().toString().substring(0, 8);
    private final String topic = "fg-orders-" + suffix;
    private final String resource = "account:" + suffix;
    private final BlockingQueue<Processed> processed = new LinkedBlockingQueue<>();
    private final BlockingQueue<ConsumerRecord<String, String>> dead = new LinkedBlockingQueue<>();
    private final AtomicInteger refusals = new AtomicInteger();
    private final AtomicInteger admissionCalls = new AtomicInteger();
    private PausableLeaseProvider provider;
    private LeaseManager leases;
    private DefaultKafkaProducerFactory<String, String> producers;
    private KafkaTemplate<String, String> fencedTemplate;
    private KafkaTemplate<String, String> plainTemplate;
    private KafkaMessageListenerContainer<String, String> consumer;
    private KafkaMessageListenerContainer<String, String> deadLetters;

    record Processed(String value, Fence bound) {
    }

    @BeforeAll
    static void servers() throws Exception {
        broker = new EmbeddedKafkaKraftBroker(1, 1);
        broker.afterPropertiesSet();
        ledger = Ledger.create("fg_msg_kafka_ledger");
    }

    @AfterAll
    static void stopServers() {
        if (broker != null) {
            broker.destroy();
        }
    }

    @BeforeEach
    void wire() throws Exception {
        broker.addTopics(topic, topic + "-dlt");
        PausableLeases pausable = PausableLeases.onRedis();
        provider = pausable.provider();
        leases = pausable.leases();

        Map<String, Object> producerProps = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.LINGER_MS_CONFIG, 0);
        producers = new DefaultKafkaProducerFactory<>(producerProps);
        fencedTemplate = new KafkaTemplate<>(producers);
        fencedTemplate.setProducerInterceptor(new FencingProducerInterceptor<>());
        plainTemplate = new KafkaTemplate<>(producers);

        HighWaterStore redisMarks = FreshHighWaterStore.on("fg-msg-" + suffix + ":");
        HighWaterStore counted = fence -> {
            admissionCalls.incrementAndGet();
            return redisMarks.admit(fence);
        };
        MessageAdmission admission = MessageAdmission.of(counted, refusal -> refusals.incrementAndGet());

        consumer = container(topic, "fg-consumer-" + suffix, (MessageListener<String, String>) record -> {
            Fence bound = LeaseContext.current().map(Lease::fence).orElse(null);
            try {
                ledger.apply();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            processed.add(new Processed(record.value(), bound));
        });
        consumer.setRecordInterceptor(new FencingRecordInterceptor<>(admission));
        consumer.setCommonErrorHandler(KafkaFencing.errorHandler(plainTemplate));
        deadLetters = container(topic + "-dlt", "fg-dlt-" + suffix, (MessageListener<String, String>) dead::add);
        consumer.start();
        deadLetters.start();
        ContainerTestUtils.waitForAssignment(consumer, 1);
        ContainerTestUtils.waitForAssignment(deadLetters, 1);
    }

    private static KafkaMessageListenerContainer<String, String> container(String topic, String group,
            MessageListener<String, String> listener) {
        Map<String, Object> props = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString(),
                ConsumerConfig.GROUP_ID_CONFIG, group,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        ContainerProperties properties = new ContainerProperties(topic);
        properties.setMessageListener(listener);
        return new KafkaMessageListenerContainer<>(new DefaultKafkaConsumerFactory<>(props), properties);
    }

    @AfterEach
    void unwire() {
        consumer.stop();
        deadLetters.stop();
        leases.close();
        producers.destroy();
    }

    @Test
    void currentFencesAreAdmittedAndTheConsumerWritesUnderThemWhileAStaleOneIsDeadLetteredOnce() throws Exception {
        Fence first;
        try (Lease a = leases.acquire(resource, Duration.ofSeconds(5)); LeaseContext.Scope scope = LeaseContext.bind(a)) {
            first = a.fence();
            fencedTemplate.send(topic, "a-1").get(10, TimeUnit.SECONDS);
        }
        Processed fromA = next(processed);
        assertThat(fromA.value()).isEqualTo("a-1");
        assertThat(fromA.bound()).as("the consumer runs under the producer's fence").isEqualTo(first);
        assertThat(ledger.rowToken()).isEqualTo(first.token().value());

        Fence second;
        try (Lease b = leases.acquire(resource, Duration.ofSeconds(5)); LeaseContext.Scope scope = LeaseContext.bind(b)) {
            second = b.fence();
            fencedTemplate.send(topic, "b-1").get(10, TimeUnit.SECONDS);
        }
        assertThat(second.token().isNewerThan(first.token())).isTrue();
        assertThat(next(processed).bound()).isEqualTo(second);
        long appliedBefore = ledger.applied();

        // A's message, delayed in flight (or re-sent by A after a pause), arrives after B's.
        int callsBefore = admissionCalls.get();
        plainTemplate.send(fenced(topic, "a-late", FenceHeader.of(first).value())).get(10, TimeUnit.SECONDS);
        ConsumerRecord<String, String> deadLetter = next(dead);
        assertThat(deadLetter.value()).isEqualTo("a-late");
        assertThat(header(deadLetter, MessageHeaders.REFUSAL)).isEqualTo("STALE");
        assertThat(header(deadLetter, MessageHeaders.HIGH_WATER)).isEqualTo(String.valueOf(second.token().value()));
        assertThat(header(deadLetter, MessageHeaders.REFUSAL_MESSAGE)).contains(resource, "older than the high-water mark");
        assertThat(header(deadLetter, MessageHeaders.FENCE)).isEqualTo(FenceHeader.of(first).value());

        // B continues with the same token; by then the stale record is behind the consumer, tried once.
        try (Lease b = leases.acquire(resource, Duration.ofSeconds(5)); LeaseContext.Scope scope = LeaseContext.bind(b)) {
            fencedTemplate.send(topic, "b-2").get(10, TimeUnit.SECONDS);
        }
        assertThat(next(processed).value()).isEqualTo("b-2");
        assertThat(admissionCalls.get() - callsBefore).as("the stale record is not retried").isEqualTo(2);
        assertThat(refusals).hasValue(1);
        assertThat(ledger.applied()).as("only b-2 was applied after the stale record").isEqualTo(appliedBefore + 1);
        assertThat(processed).isEmpty();
        assertThat(dead).isEmpty();
    }

    @Test
    void missingMalformedAndDuplicatedFencesAreDeadLetteredWithTheirReason() throws Exception {
        plainTemplate.send(topic, "no-fence").get(10, TimeUnit.SECONDS);
        plainTemplate.send(fenced(topic, "garbled", "v1;r=account 42;t=7")).get(10, TimeUnit.SECONDS);
        ProducerRecord<String, String> twice = fenced(topic, "twice", "v1;r=" + resource + ";t=5");
        twice.headers().add(MessageHeaders.FENCE, ("v1;r=" + resource + ";t=9").getBytes(StandardCharsets.US_ASCII));
        plainTemplate.send(twice).get(10, TimeUnit.SECONDS);

        ConsumerRecord<String, String> missing = next(dead);
        ConsumerRecord<String, String> malformed = next(dead);
        ConsumerRecord<String, String> duplicated = next(dead);
        assertThat(missing.value()).isEqualTo("no-fence");
        assertThat(header(missing, MessageHeaders.REFUSAL)).isEqualTo("MISSING");
        assertThat(malformed.value()).isEqualTo("garbled");
        assertThat(header(malformed, MessageHeaders.REFUSAL)).isEqualTo("MALFORMED");
        assertThat(header(malformed, MessageHeaders.REFUSAL_MESSAGE)).contains("invalid resource");
        assertThat(duplicated.value()).isEqualTo("twice");
        assertThat(header(duplicated, MessageHeaders.REFUSAL)).isEqualTo("MALFORMED");
        assertThat(header(duplicated, MessageHeaders.REFUSAL_MESSAGE)).contains("2 Fencing-Token headers");
        assertThat(processed).isEmpty();
        assertThat(admissionCalls).as("nothing reached the store").hasValue(0);
    }

    @Test
    void aSendUnderALostLeaseFailsAndNothingIsSent() throws Exception {
        try (Lease lease = leases.acquire(resource, Duration.ofSeconds(5)); LeaseContext.Scope scope = LeaseContext.bind(lease)) {
            // Paused past the lease's time, and waited for at least as long.
            Duration pause = PausableLeases.LEASE_TIME.multipliedBy(3);
            provider.pauseRenewals(lease.resource(), pause);
            long deadline = System.nanoTime() + pause.toNanos();
            while (lease.isValid() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(lease.isValid()).as("the paused lease ran out").isFalse();
            assertThatThrownBy(() -> fencedTemplate.send(topic, "after-loss"))
                    .isInstanceOf(LeaseLostException.class)
                    .hasMessageContaining(resource);
        }
        provider.resumeRenewals();
        try (Lease next = leases.acquire(resource, Duration.ofSeconds(5)); LeaseContext.Scope scope = LeaseContext.bind(next)) {
            fencedTemplate.send(topic, "marker").get(10, TimeUnit.SECONDS);
        }
        assertThat(next(processed).value()).as("the first record on the topic is the marker").isEqualTo("marker");
        assertThat(dead).isEmpty();
    }

    private static ProducerRecord<String, String> fenced(String topic, String value, String fence) {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, value);
        record.headers().add(MessageHeaders.FENCE, fence.getBytes(StandardCharsets.US_ASCII));
        return record;
    }

    private static String header(ConsumerRecord<?, ?> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private static <T> T next(BlockingQueue<T> queue) throws InterruptedException {
        T item = queue.poll(30, TimeUnit.SECONDS);
        assertThat(item).as("arrived within 30 s").isNotNull();
        return item;
    }
}
