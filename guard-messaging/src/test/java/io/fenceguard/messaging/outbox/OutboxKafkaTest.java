package io.fenceguard.messaging.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.core.Fence;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.messaging.MessageAdmission;
import io.fenceguard.messaging.MessageHeaders;
import io.fenceguard.messaging.MessageIdempotency;
import io.fenceguard.messaging.kafka.FencingRecordInterceptor;
import io.fenceguard.messaging.kafka.KafkaFencing;
import io.fenceguard.messaging.outbox.kafka.KafkaOutboxSender;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.TestServers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
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
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import org.springframework.kafka.test.utils.ContainerTestUtils;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The outbox on Spring Kafka's embedded broker, rows on PostgreSQL: records carry the row's fence and key, keyed
 * by the resource; a send whose acknowledgement the relay never saw is sent again and applied once; a record under
 * an older fence than one applied goes to the dead-letter topic with the reason.
 */
class OutboxKafkaTest {

    private static EmbeddedKafkaKraftBroker broker;

    private final String suffix = UUID.randomUUID().toString().substring(0, 8);
    private final String topic = "fg-outbox-" + suffix;
    private final String resource = "order:" + suffix;
    private final String outbox = "fg_outbox_k_" + suffix;
    private final BlockingQueue<ConsumerRecord<String, byte[]>> applied = new LinkedBlockingQueue<>();
    private final BlockingQueue<ConsumerRecord<String, byte[]>> dead = new LinkedBlockingQueue<>();
    private final AtomicInteger deliveries = new AtomicInteger();
    private PGSimpleDataSource db;
    private JdbcTemplate jdbc;
    private TransactionTemplate transactions;
    private DefaultKafkaProducerFactory<String, byte[]> producers;
    private KafkaTemplate<String, byte[]> template;
    private KafkaMessageListenerContainer<String, byte[]> consumer;
    private KafkaMessageListenerContainer<String, byte[]> deadLetters;

    @BeforeAll
    static void startBroker() {
        broker = new EmbeddedKafkaKraftBroker(1, 1);
        broker.afterPropertiesSet();
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.destroy();
        }
    }

    @BeforeEach
    void wire() {
        JdbcEndpoint postgres = TestServers.postgres();
        db = new PGSimpleDataSource();
        db.setURL(postgres.url());
        db.setUser(postgres.user());
        db.setPassword(postgres.password());
        FenceguardMigrations.migrate(db);
        jdbc = new JdbcTemplate(db);
        jdbc.execute("CREATE TABLE " + outbox + " (LIKE fenceguard_outbox INCLUDING ALL)");
        transactions = new TransactionTemplate(new DataSourceTransactionManager(db));

        broker.addTopics(topic, topic + "-dlt");
        producers = new DefaultKafkaProducerFactory<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                ProducerConfig.LINGER_MS_CONFIG, 0));
        template = new KafkaTemplate<>(producers);

        // one in-memory store serves both: the marks that admit fences and the keys applied once
        InMemoryHighWaterStore store = InMemoryHighWaterStore.create();
        MessageIdempotency idempotency = MessageIdempotency.of(store);
        consumer = container(topic, (MessageListener<String, byte[]>) record -> {
            deliveries.incrementAndGet();
            Header key = record.headers().lastHeader(MessageHeaders.IDEMPOTENCY_KEY);
            idempotency.applyOnce(key == null ? null : new String(key.value(), StandardCharsets.UTF_8), record.value(),
                    "kafka:" + topic, () -> applied.add(record));
        });
        consumer.setRecordInterceptor(new FencingRecordInterceptor<>(MessageAdmission.of(store)));
        consumer.setCommonErrorHandler(KafkaFencing.errorHandler(template));
        deadLetters = container(topic + "-dlt", dead::add);
        consumer.start();
        deadLetters.start();
        ContainerTestUtils.waitForAssignment(consumer, 1);
        ContainerTestUtils.waitForAssignment(deadLetters, 1);
    }

    private KafkaMessageListenerContainer<String, byte[]> container(String name, MessageListener<String, byte[]> listener) {
        Map<String, Object> props = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString(),
                ConsumerConfig.GROUP_ID_CONFIG, "fg-outbox-" + name,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        ContainerProperties properties = new ContainerProperties(name);
        properties.setMessageListener(listener);
        return new KafkaMessageListenerContainer<>(new DefaultKafkaConsumerFactory<>(props), properties);
    }

    @AfterEach
    void unwire() {
        consumer.stop();
        deadLetters.stop();
        producers.destroy();
        jdbc.execute("DROP TABLE IF EXISTS " + outbox);
    }

    @Test
    void aSendWhoseAcknowledgementWasLostIsSentAgainAndAppliedOnceAndAStaleRecordIsDeadLettered() throws Exception {
        OutboxWriter writer = OutboxWriter.of(outbox);
        Fence current = Fence.of(resource, "200");
        List<String> keys = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            String key = "event-" + i + "-" + suffix;
            byte[] body = ("order " + i).getBytes(StandardCharsets.UTF_8);
            transactions.executeWithoutResult(status -> writer.append(DataSourceUtils.getConnection(db), current, key,
                    topic, null, body, Map.of("event-type", "order-placed")));
            keys.add(key);
        }
        KafkaOutboxSender kafka = new KafkaOutboxSender(template, Duration.ofSeconds(10));
        AtomicInteger sends = new AtomicInteger();
        // the second record reaches the broker, but the relay hears of it as a failure (a lost acknowledgement)
        OutboxSender losingOneAck = message -> {
            kafka.send(message);
            if (sends.incrementAndGet() == 2) {
                throw new java.util.concurrent.TimeoutException("no acknowledgement in time");
            }
        };
        OutboxRelay relay = OutboxRelay.builder(db, losingOneAck).table(outbox).build();
        assertThat(relay.relayOnce()).as("the batch stops at the failed send").isOne();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM " + outbox, Long.class)).isEqualTo(2);
        assertThat(relay.relayOnce()).isEqualTo(2);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM " + outbox, Long.class)).isZero();

        List<String> appliedKeys = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ConsumerRecord<String, byte[]> record = applied.poll(30, TimeUnit.SECONDS);
            assertThat(record).as("applied within 30 s").isNotNull();
            assertThat(record.key()).as("keyed by the resource: one partition's order").isEqualTo(resource);
            assertThat(header(record, MessageHeaders.FENCE)).isEqualTo(FenceHeader.of(current).value());
            assertThat(header(record, "event-type")).isEqualTo("order-placed");
            appliedKeys.add(header(record, MessageHeaders.IDEMPOTENCY_KEY));
        }
        assertThat(appliedKeys).containsExactlyElementsOf(keys);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (deliveries.get() < 4 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(deliveries).as("the second record came twice").hasValue(4);
        assertThat(applied).as("and was applied once").isEmpty();

        String staleKey = "stale-" + suffix;
        transactions.executeWithoutResult(status -> writer.append(DataSourceUtils.getConnection(db),
                Fence.of(resource, "199"), staleKey, topic, null, "late".getBytes(StandardCharsets.UTF_8), Map.of()));
        assertThat(relay.relayOnce()).isOne();
        ConsumerRecord<String, byte[]> deadLetter = dead.poll(30, TimeUnit.SECONDS);
        assertThat(deadLetter).as("dead-lettered within 30 s").isNotNull();
        assertThat(new String(deadLetter.value(), StandardCharsets.UTF_8)).isEqualTo("late");
        assertThat(header(deadLetter, MessageHeaders.REFUSAL)).isEqualTo("STALE");
        assertThat(header(deadLetter, MessageHeaders.HIGH_WATER)).isEqualTo("200");
        assertThat(header(deadLetter, MessageHeaders.REFUSAL_MESSAGE)).contains(resource, "older than the high-water mark");
        assertThat(header(deadLetter, MessageHeaders.IDEMPOTENCY_KEY)).isEqualTo(staleKey);
        assertThat(applied).isEmpty();
    }

    private static String header(ConsumerRecord<?, ?> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}
