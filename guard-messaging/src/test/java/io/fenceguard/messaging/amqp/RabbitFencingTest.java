package io.fenceguard.messaging.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.admission.FenceHeader;
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
import io.fenceguard.test.support.TestServers;
import io.fenceguard.test.support.faults.PausableLeaseProvider;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
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
 * RabbitMQ on the real broker (skipped with the reason when none is reachable), leases and high-water
 * marks on Redis, the consumer's writes on PostgreSQL: producers stamp the lease's fence, consumers admit
 * current fences and write under them; refused messages are never requeued and reach the dead-letter
 * exchange, republished with the reason in headers or rejected to the queue's own dead-letter exchange.
 */
class RabbitFencingTest {

    private static CachingConnectionFactory connections;
    private static Ledger ledger;

    private final String suffix = UUID.randomUUID().toString().substring(0, 8);
    private final String resource = "account:" + suffix;
    private final String queue = "fg-orders-" + suffix;
    private final String rejectingQueue = "fg-orders-rejecting-" + suffix;
    private final String idleQueue = "fg-orders-idle-" + suffix;
    private final String deadLetterExchange = "fg-dlx-" + suffix;
    private final String deadLetterQueue = "fg-dlq-" + suffix;
    private final BlockingQueue<Fence> processed = new LinkedBlockingQueue<>();
    private final AtomicInteger refusals = new AtomicInteger();
    private RabbitAdmin admin;
    private RabbitTemplate fencedTemplate;
    private RabbitTemplate plainTemplate;
    private PausableLeaseProvider provider;
    private LeaseManager leases;
    private SimpleMessageListenerContainer republishing;
    private SimpleMessageListenerContainer rejecting;

    @BeforeAll
    static void servers() throws Exception {
        URI rabbit = TestServers.rabbitmq();
        connections = new CachingConnectionFactory(rabbit);
        ledger = Ledger.create("fg_msg_rabbit_ledger");
    }

    @AfterAll
    static void stopServers() {
        if (connections != null) {
            connections.destroy();
        }
    }

    @BeforeEach
    void wire() {
        admin = new RabbitAdmin(connections);
        FanoutExchange dlx = new FanoutExchange(deadLetterExchange, false, true);
        admin.declareExchange(dlx);
        Queue dlq = QueueBuilder.nonDurable(deadLetterQueue).build();
        admin.declareQueue(dlq);
        admin.declareBinding(BindingBuilder.bind(dlq).to(dlx));
        for (String name : List.of(queue, rejectingQueue, idleQueue)) {
            admin.declareQueue(QueueBuilder.nonDurable(name).deadLetterExchange(deadLetterExchange).build());
        }

        fencedTemplate = new RabbitTemplate(connections);
        fencedTemplate.addBeforePublishPostProcessors(new FencingMessagePostProcessor());
        plainTemplate = new RabbitTemplate(connections);
        PausableLeases pausable = PausableLeases.onRedis();
        provider = pausable.provider();
        leases = pausable.leases();

        MessageAdmission admission = MessageAdmission.of(FreshHighWaterStore.on("fg-amqp-" + suffix + ":"),
                refusal -> refusals.incrementAndGet());
        FencingListenerAdvice advice = FencingListenerAdvice.of(admission);
        republishing = container(queue, advice.deadLetteringTo(RabbitFencing.deadLetterRecoverer(plainTemplate, deadLetterExchange)));
        rejecting = container(rejectingQueue, advice);
    }

    private SimpleMessageListenerContainer container(String name, FencingListenerAdvice advice) {
        SimpleMessageListenerContainer container = new SimpleMessageListenerContainer(connections);
        container.setQueueNames(name);
        container.setAdviceChain(advice);
        container.setMessageListener(message -> {
            Fence bound = LeaseContext.current().map(Lease::fence).orElse(null);
            try {
                ledger.apply();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            processed.add(bound);
        });
        container.start();
        return container;
    }

    @AfterEach
    void unwire() {
        republishing.stop();
        rejecting.stop();
        leases.close();
        for (String name : List.of(queue, rejectingQueue, idleQueue, deadLetterQueue)) {
            admin.deleteQueue(name);
        }
        admin.deleteExchange(deadLetterExchange);
    }

    @Test
    void currentFencesAreAdmittedAndAStaleOneIsDeadLetteredWithItsReasonNotRequeued() throws Exception {
        Fence first;
        try (Lease a = leases.acquire(resource, Duration.ofSeconds(5)); LeaseContext.Scope scope = LeaseContext.bind(a)) {
            first = a.fence();
            fencedTemplate.convertAndSend("", queue, "a-1");
        }
        assertThat(next(processed)).as("the consumer runs under the producer's fence").isEqualTo(first);
        assertThat(ledger.rowToken()).isEqualTo(first.token().value());
        Fence second;
        try (Lease b = leases.acquire(resource, Duration.ofSeconds(5)); LeaseContext.Scope scope = LeaseContext.bind(b)) {
            second = b.fence();
            fencedTemplate.convertAndSend("", queue, "b-1");
        }
        assertThat(next(processed)).isEqualTo(second);
        long applied = ledger.applied();

        plainTemplate.send("", queue, message("a-late", FenceHeader.of(first).value()));
        Message dead = plainTemplate.receive(deadLetterQueue, 30_000);
        assertThat(dead).as("dead-lettered within 30 s").isNotNull();
        assertThat(new String(dead.getBody(), StandardCharsets.UTF_8)).isEqualTo("a-late");
        Map<String, Object> headers = dead.getMessageProperties().getHeaders();
        assertThat(headers.get(MessageHeaders.REFUSAL)).hasToString("STALE");
        assertThat(headers.get(MessageHeaders.HIGH_WATER)).hasToString(String.valueOf(second.token().value()));
        assertThat(headers.get(MessageHeaders.REFUSAL_MESSAGE).toString()).contains(resource, "older than the high-water mark");
        assertThat(headers.get("x-original-routingKey")).hasToString(queue);

        Thread.sleep(500);
        assertThat(refusals).as("refused once: not requeued").hasValue(1);
        assertThat(processed).isEmpty();
        assertThat(ledger.applied()).isEqualTo(applied);
        assertThat(admin.getQueueInfo(queue).getMessageCount()).isZero();
    }

    @Test
    void withoutARecovererARefusedMessageIsRejectedToTheQueuesDeadLetterExchange() throws Exception {
        plainTemplate.send("", rejectingQueue, MessageBuilder.withBody("no-fence".getBytes(StandardCharsets.UTF_8)).build());
        plainTemplate.send("", rejectingQueue, message("garbled", "v1;r=account 42;t=7"));
        Message missing = plainTemplate.receive(deadLetterQueue, 30_000);
        Message malformed = plainTemplate.receive(deadLetterQueue, 30_000);
        assertThat(missing).isNotNull();
        assertThat(malformed).isNotNull();
        assertThat(new String(missing.getBody(), StandardCharsets.UTF_8)).isEqualTo("no-fence");
        assertThat(new String(malformed.getBody(), StandardCharsets.UTF_8)).isEqualTo("garbled");
        for (Message dead : List.of(missing, malformed)) {
            List<Map<String, ?>> deaths = dead.getMessageProperties().getXDeathHeader();
            assertThat(deaths).hasSize(1);
            assertThat(deaths.get(0).get("reason")).hasToString("rejected");
            assertThat(deaths.get(0).get("queue")).hasToString(rejectingQueue);
            assertThat(deaths.get(0).get("count")).isEqualTo(1L);
        }
        assertThat(refusals).hasValue(2);
        assertThat(processed).isEmpty();
    }

    @Test
    void aSendUnderALostLeaseFailsAndPublishesNothing() throws Exception {
        try (Lease lease = leases.acquire(resource, Duration.ofSeconds(5)); LeaseContext.Scope scope = LeaseContext.bind(lease)) {
            // Paused past the lease's time, and waited for at least as long.
            Duration pause = PausableLeases.LEASE_TIME.multipliedBy(3);
            provider.pauseRenewals(lease.resource(), pause);
            long deadline = System.nanoTime() + pause.toNanos();
            while (lease.isValid() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(lease.isValid()).as("the paused lease ran out").isFalse();
            assertThatThrownBy(() -> fencedTemplate.convertAndSend("", idleQueue, "after-loss"))
                    .hasRootCauseInstanceOf(LeaseLostException.class);
        }
        fencedTemplate.convertAndSend("", idleQueue, "unfenced-marker");  // without a lease the template sends
        Message first = plainTemplate.receive(idleQueue, 10_000);
        assertThat(first).isNotNull();
        assertThat(new String(first.getBody(), StandardCharsets.UTF_8)).isEqualTo("unfenced-marker");
        assertThat(admin.getQueueInfo(idleQueue).getMessageCount()).isZero();
    }

    private static Message message(String body, String fence) {
        return MessageBuilder.withBody(body.getBytes(StandardCharsets.UTF_8)).setHeader(MessageHeaders.FENCE, fence).build();
    }

    private static <T> T next(BlockingQueue<T> queue) throws InterruptedException {
        T item = queue.poll(30, TimeUnit.SECONDS);
        assertThat(item).as("arrived within 30 s").isNotNull();
        return item;
    }
}
