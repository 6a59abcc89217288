package io.fenceguard.spring.boot.autoconfigure.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.messaging.MessageAdmission;
import io.fenceguard.messaging.MessageHeaders;
import io.fenceguard.messaging.kafka.FencingProducerInterceptor;
import io.fenceguard.messaging.kafka.FencingRecordInterceptor;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.DirectFieldAccessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.CommonLoggingErrorHandler;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * The messaging auto-configuration with Boot's Kafka auto-configuration on Spring Kafka's embedded broker:
 * Boot's KafkaTemplate stamps the bound lease's fence, {@code @KafkaListener}s run under an admitted fence,
 * and a stale record reaches the dead-letter topic with the reason, through the beans alone.
 */
class KafkaMessagingAutoConfigurationTest {

    private static EmbeddedKafkaKraftBroker broker;

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

    record Received(String value, Fence bound, String refusal, String highWater, String refusalMessage) {
    }

    /** An application's listener on the orders topic. */
    @Configuration(proxyBeanMethods = false)
    static class Listeners {

        final BlockingQueue<Received> processed = new LinkedBlockingQueue<>();

        @KafkaListener(topics = "${test.topic}", groupId = "${test.topic}-app")
        void order(ConsumerRecord<String, String> record) {
            processed.add(new Received(record.value(), LeaseContext.current().map(Lease::fence).orElse(null), null, null, null));
        }
    }

    /**
     * Reads the dead-letter topic with a plain consumer: through Boot's (fenced) factory the dead letters,
     * which keep their refused fence header, would be refused again.
     */
    static final class DeadLetters implements AutoCloseable {

        private final KafkaConsumer<String, String> consumer;
        private final java.util.ArrayDeque<Received> buffered = new java.util.ArrayDeque<>();

        DeadLetters(String topic) {
            consumer = new KafkaConsumer<>(java.util.Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString(),
                    ConsumerConfig.GROUP_ID_CONFIG, topic + "-reader", ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                    new StringDeserializer(), new StringDeserializer());
            consumer.subscribe(java.util.List.of(topic));
        }

        Received next() {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (buffered.isEmpty() && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(java.time.Duration.ofMillis(200))) {
                    buffered.add(new Received(record.value(), null, header(record, MessageHeaders.REFUSAL),
                            header(record, MessageHeaders.HIGH_WATER), header(record, MessageHeaders.REFUSAL_MESSAGE)));
                }
            }
            assertThat(buffered).as("a dead letter arrived within 30 s").isNotEmpty();
            return buffered.poll();
        }

        @Override
        public void close() {
            consumer.close();
        }
    }

    private ApplicationContextRunner runner(String topic, String dltSuffix) {
        broker.addTopics(topic, topic + dltSuffix);
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkaAutoConfiguration.class,
                        FenceguardMessagingAutoConfiguration.class))
                .withPropertyValues("spring.kafka.bootstrap-servers=" + broker.getBrokersAsString(),
                        "spring.kafka.consumer.auto-offset-reset=earliest",
                        "spring.kafka.producer.properties.linger.ms=0",
                        "test.topic=" + topic);
    }

    @Test
    void aCurrentRecordReachesTheListenerUnderItsFenceAndAStaleOneGoesToTheDeadLetterTopicWithTheReason() {
        String topic = "fg-boot-orders-" + UUID.randomUUID().toString().substring(0, 8);
        String resource = "account:" + topic;
        ApplicationContextRunner runner = runner(topic, "-dlt").withUserConfiguration(Listeners.class);
        try (DeadLetters deadLetters = new DeadLetters(topic + "-dlt")) {
            runner.run(context -> {
                assertThat(context).hasSingleBean(MessageAdmission.class).hasSingleBean(HighWaterStore.class)
                        .hasSingleBean(FencingRecordInterceptor.class);
                assertThat(context.getBean(CommonErrorHandler.class)).isInstanceOf(DefaultErrorHandler.class);
                @SuppressWarnings("unchecked")
                KafkaTemplate<Object, Object> template = context.getBean(KafkaTemplate.class);
                assertThat(new DirectFieldAccessor(template).getPropertyValue("producerInterceptor"))
                        .isInstanceOf(FencingProducerInterceptor.class);
                assertThat(context.getBean(org.springframework.kafka.core.ConsumerFactory.class).getConfigurationProperties()
                        .get(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG)).as("each poll admitted at once")
                        .isEqualTo(java.util.List.of(io.fenceguard.messaging.kafka.FencingConsumerInterceptor.class));
                Listeners listeners = context.getBean(Listeners.class);

                Fence current = Fence.of(resource, "7");
                send(template, topic, "current", current);
                Received admitted = next(listeners.processed);
                assertThat(admitted.value()).isEqualTo("current");
                assertThat(admitted.bound()).as("the listener runs under the producer's fence").isEqualTo(current);

                Fence stale = Fence.of(resource, "5");
                send(template, topic, "stale", stale);
                Received dead = deadLetters.next();
                assertThat(dead.value()).isEqualTo("stale");
                assertThat(dead.refusal()).isEqualTo("STALE");
                assertThat(dead.highWater()).isEqualTo("7");
                assertThat(dead.refusalMessage()).contains(resource, "older than the high-water mark");

                send(template, topic, "unfenced", null);
                Received missing = deadLetters.next();
                assertThat(missing.value()).isEqualTo("unfenced");
                assertThat(missing.refusal()).isEqualTo("MISSING");
                assertThat(listeners.processed).as("neither refused record reached the listener").isEmpty();
            });
        }
    }

    @Test
    void theDeadLetterTopicSuffixIsConfigurable() {
        String topic = "fg-boot-suffix-" + UUID.randomUUID().toString().substring(0, 8);
        runner(topic, ".refused").withUserConfiguration(Listeners.class)
                .withPropertyValues("fenceguard.messaging.kafka.dead-letter-topic-suffix=.refused")
                .run(context -> {
                    @SuppressWarnings("unchecked")
                    KafkaTemplate<Object, Object> template = context.getBean(KafkaTemplate.class);
                    send(template, topic, "garbled-fence", null, "v1;r=account 1;t=3");
                    Received dead;
                    try (DeadLetters deadLetters = new DeadLetters(topic + ".refused")) {
                        dead = deadLetters.next();
                    }
                    assertThat(dead.value()).isEqualTo("garbled-fence");
                    assertThat(dead.refusal()).isEqualTo("MALFORMED");
                });
    }

    @Test
    void theApplicationsOwnErrorHandlerAndInterceptorAreKept() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkaAutoConfiguration.class,
                        FenceguardMessagingAutoConfiguration.class))
                .withPropertyValues("spring.kafka.bootstrap-servers=" + broker.getBrokersAsString())
                .withBean("appErrorHandler", CommonErrorHandler.class, CommonLoggingErrorHandler::new)
                .withBean("appRecordInterceptor", org.springframework.kafka.listener.RecordInterceptor.class,
                        () -> (record, consumer) -> record)
                .run(context -> {
                    assertThat(context).hasSingleBean(CommonErrorHandler.class).hasBean("appErrorHandler")
                            .doesNotHaveBean(FencingRecordInterceptor.class);
                    ConcurrentKafkaListenerContainerFactory<?, ?> factory =
                            context.getBean(ConcurrentKafkaListenerContainerFactory.class);
                    assertThat(new DirectFieldAccessor(factory).getPropertyValue("commonErrorHandler"))
                            .isSameAs(context.getBean("appErrorHandler"));
                    assertThat(context.getBean(org.springframework.kafka.core.ConsumerFactory.class)
                            .getConfigurationProperties()).as("no poll admission without our record interceptor")
                            .doesNotContainKey(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG);
                });
    }

    @Test
    void offWhenDisabled() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkaAutoConfiguration.class,
                        FenceguardMessagingAutoConfiguration.class))
                .withPropertyValues("spring.kafka.bootstrap-servers=" + broker.getBrokersAsString(),
                        "fenceguard.messaging.kafka.enabled=false")
                .run(context -> {
                    assertThat(context).doesNotHaveBean(FencingRecordInterceptor.class)
                            .doesNotHaveBean(FencingProducerInterceptor.class).doesNotHaveBean(CommonErrorHandler.class);
                    assertThat(new DirectFieldAccessor(context.getBean(KafkaTemplate.class))
                            .getPropertyValue("producerInterceptor")).isNull();
                });
    }

    private static void send(KafkaTemplate<Object, Object> template, String topic, String value, Fence fence) throws Exception {
        send(template, topic, value, fence, null);
    }

    private static void send(KafkaTemplate<Object, Object> template, String topic, String value, Fence fence,
            String rawHeader) throws Exception {
        org.apache.kafka.clients.producer.ProducerRecord<Object, Object> record =
                new org.apache.kafka.clients.producer.ProducerRecord<>(topic, value);
        if (rawHeader != null) {
            record.headers().add(MessageHeaders.FENCE, rawHeader.getBytes(StandardCharsets.US_ASCII));
        }
        if (fence == null) {
            template.send(record).get(10, TimeUnit.SECONDS);
            return;
        }
        try (LeaseContext.Scope scope = LeaseContext.bind(Lease.presented(fence, "test"))) {
            template.send(record).get(10, TimeUnit.SECONDS);
        }
        assertThat(FenceHeader.of(fence).value()).isNotBlank();
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
