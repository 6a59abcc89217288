package io.fenceguard.messaging.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.messaging.CountedHighWaterStore;
import io.fenceguard.messaging.FreshHighWaterStore;
import io.fenceguard.messaging.MessageAdmission;
import io.fenceguard.messaging.MessageHeaders;
import io.fenceguard.messaging.StaleInBatch;
import io.fenceguard.redis.RedisHighWaterStore;
import io.fenceguard.test.support.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.BatchMessageListener;
import org.springframework.amqp.core.BindingBuilder;
import org.springframework.amqp.core.FanoutExchange;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageBuilder;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;

/**
 * A batch listener's batch ({@code consumerBatchEnabled}) admitted in one call of the Redis high-water store, on
 * the real broker: two resources and a stale message; the stale one is republished to the dead-letter exchange
 * with its reason, the listener gets the others, and the store was asked once for the batch.
 */
class RabbitBatchAdmissionTest {

    private static CachingConnectionFactory connections;

    @BeforeAll
    static void servers() {
        connections = new CachingConnectionFactory(TestServers.rabbitmq());
    }

    @AfterAll
    static void stopServers() {
        if (connections != null) {
            connections.destroy();
        }
    }

    @Test
    void aBatchIsAdmittedInOneCallTheStaleMessageIsDeadLetteredAndTheListenerGetsTheRest() throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String queue = "fg-batch-" + suffix;
        String deadLetterExchange = "fg-batch-dlx-" + suffix;
        String deadLetterQueue = "fg-batch-dlq-" + suffix;
        RabbitAdmin admin = new RabbitAdmin(connections);
        FanoutExchange dlx = new FanoutExchange(deadLetterExchange, false, true);
        admin.declareExchange(dlx);
        Queue dlq = QueueBuilder.nonDurable(deadLetterQueue).build();
        admin.declareQueue(dlq);
        admin.declareBinding(BindingBuilder.bind(dlq).to(dlx));
        admin.declareQueue(QueueBuilder.nonDurable(queue).deadLetterExchange(deadLetterExchange).build());
        RabbitTemplate template = new RabbitTemplate(connections);

        RedisHighWaterStore redis = FreshHighWaterStore.on("fg-amqp-batch-" + suffix + ":");
        CountedHighWaterStore counted = new CountedHighWaterStore(redis);
        FencingListenerAdvice advice = FencingListenerAdvice.of(MessageAdmission.of(counted))
                .deadLetteringTo(RabbitFencing.deadLetterRecoverer(template, deadLetterExchange));

        StaleInBatch stale = StaleInBatch.above(redis, suffix);
        List<Map.Entry<String, Fence>> sent = stale.messages();
        for (Map.Entry<String, Fence> message : sent) {
            template.send("", queue, MessageBuilder.withBody(message.getKey().getBytes(StandardCharsets.UTF_8))
                    .setHeader(MessageHeaders.FENCE, FenceHeader.of(message.getValue()).value()).build());
        }

        BlockingQueue<List<String>> batches = new LinkedBlockingQueue<>();
        BlockingQueue<Boolean> bound = new LinkedBlockingQueue<>();
        SimpleMessageListenerContainer container = new SimpleMessageListenerContainer(connections);
        container.setQueueNames(queue);
        container.setConsumerBatchEnabled(true);
        container.setBatchSize(sent.size());
        container.setReceiveTimeout(2_000);
        container.setAdviceChain(advice);
        container.setMessageListener((BatchMessageListener) messages -> {
            bound.add(LeaseContext.current().map(Lease::fence).isPresent());
            batches.add(messages.stream().map(m -> new String(m.getBody(), StandardCharsets.UTF_8)).toList());
        });
        try {
            container.start();
            List<String> batch = batches.poll(30, TimeUnit.SECONDS);
            assertThat(batch).as("a batch within 30 s").containsExactlyElementsOf(StaleInBatch.PASSING);
            assertThat(bound.poll()).as("several fences: none is bound for the whole batch").isFalse();

            Message dead = template.receive(deadLetterQueue, 30_000);
            assertThat(dead).as("dead-lettered within 30 s").isNotNull();
            assertThat(new String(dead.getBody(), StandardCharsets.UTF_8)).isEqualTo(StaleInBatch.STALE);
            Map<String, Object> headers = dead.getMessageProperties().getHeaders();
            assertThat(headers.get(MessageHeaders.REFUSAL)).hasToString("STALE");
            assertThat(headers.get(MessageHeaders.HIGH_WATER)).hasToString(stale.highWater());
            assertThat(headers.get(MessageHeaders.REFUSAL_MESSAGE).toString()).contains(stale.r1Old().resource().value(),
                    "older than the high-water mark");
            // one call for the six messages: r2-b repeats r2-a's fence right after it on its resource (the same answer)
            assertThat(counted.batchSizes()).as("the batch in one call").containsExactly(5);
            assertThat(counted.singleCalls()).hasValue(0);

            // a batch under one fence runs with it bound
            for (String value : List.of("r2-c", "r2-d")) {
                template.send("", queue, MessageBuilder.withBody(value.getBytes(StandardCharsets.UTF_8))
                        .setHeader(MessageHeaders.FENCE, FenceHeader.of(stale.r2()).value()).build());
            }
            List<String> more = new java.util.ArrayList<>();
            boolean allBound = true;
            while (more.size() < 2) {
                List<String> next = batches.poll(30, TimeUnit.SECONDS);
                assertThat(next).as("a batch within 30 s").isNotNull();
                more.addAll(next);
                allBound &= bound.poll();
            }
            assertThat(more).containsExactly("r2-c", "r2-d");
            assertThat(allBound).as("one fence: bound while the listener runs").isTrue();
            assertThat(template.receive(deadLetterQueue, 200)).isNull();
            assertThat(admin.getQueueInfo(queue).getMessageCount()).isZero();
        } finally {
            container.stop();
            admin.deleteQueue(queue);
            admin.deleteQueue(deadLetterQueue);
            admin.deleteExchange(deadLetterExchange);
        }
    }
}
