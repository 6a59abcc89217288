package io.fenceguard.spring.boot.autoconfigure.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.messaging.MessageHeaders;
import io.fenceguard.messaging.amqp.FencingListenerAdvice;
import io.fenceguard.messaging.amqp.FencingMessagePostProcessor;
import io.fenceguard.test.support.TestServers;
import java.net.URI;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.aopalliance.aop.Advice;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.Binding;
import org.springframework.amqp.core.BindingBuilder;
import org.springframework.amqp.core.FanoutExchange;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The messaging auto-configuration with Boot's RabbitMQ auto-configuration on the real broker (skipped with
 * the reason when none is reachable): Boot's RabbitTemplate stamps the bound lease's fence,
 * {@code @RabbitListener}s run under an admitted fence, and a stale message reaches the dead-letter exchange,
 * republished with the reason in headers or rejected to the queue's own dead-letter exchange.
 */
class RabbitMessagingAutoConfigurationTest {

    private static URI rabbit;

    @BeforeAll
    static void broker() {
        rabbit = TestServers.rabbitmq();
    }

    record Received(String body, Fence bound, Object refusal, Object highWater, Object refusalMessage) {
    }

    /** An application's queues (the orders queue dead-letters to the fanout DLX) and listeners. */
    @Configuration(proxyBeanMethods = false)
    static class Listeners {

        final BlockingQueue<Received> processed = new LinkedBlockingQueue<>();

        @Bean
        FanoutExchange deadLetterExchange(org.springframework.core.env.Environment env) {
            return new FanoutExchange(env.getProperty("test.dlx"), false, true);
        }

        @Bean
        Queue deadLetterQueue(org.springframework.core.env.Environment env) {
            return QueueBuilder.nonDurable(env.getProperty("test.dlq")).autoDelete().build();
        }

        @Bean
        Binding deadLetterBinding(FanoutExchange deadLetterExchange, Queue deadLetterQueue) {
            return BindingBuilder.bind(deadLetterQueue).to(deadLetterExchange);
        }

        @Bean
        Queue orders(org.springframework.core.env.Environment env) {
            return QueueBuilder.nonDurable(env.getProperty("test.queue")).autoDelete()
                    .deadLetterExchange(env.getProperty("test.dlx")).build();
        }

        @RabbitListener(queues = "${test.queue}")
        void order(Message message) {
            processed.add(new Received(new String(message.getBody()), LeaseContext.current().map(Lease::fence).orElse(null),
                    null, null, null));
        }
    }

    private ApplicationContextRunner runner(String suffix) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RabbitAutoConfiguration.class,
                        FenceguardMessagingAutoConfiguration.class))
                .withUserConfiguration(Listeners.class)
                .withPropertyValues("spring.rabbitmq.addresses=" + rabbit,
                        "test.queue=fg-boot-orders-" + suffix, "test.dlx=fg-boot-dlx-" + suffix,
                        "test.dlq=fg-boot-dlq-" + suffix);
    }

    @Test
    void aCurrentMessageReachesTheListenerUnderItsFenceAndAStaleOneIsRepublishedToTheDeadLetterExchangeWithTheReason() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String resource = "account:" + suffix;
        runner(suffix).withPropertyValues("fenceguard.messaging.rabbit.dead-letter-exchange=fg-boot-dlx-" + suffix)
                .run(context -> {
                    assertThat(context).hasSingleBean(FencingListenerAdvice.class)
                            .hasSingleBean(FencingMessagePostProcessor.class);
                    Advice[] chain = context.getBean(SimpleRabbitListenerContainerFactory.class).getAdviceChain();
                    assertThat(chain[0]).isSameAs(context.getBean(FencingListenerAdvice.class));
                    RabbitTemplate template = context.getBean(RabbitTemplate.class);
                    Listeners listeners = context.getBean(Listeners.class);
                    String queue = "fg-boot-orders-" + suffix;

                    Fence current = Fence.of(resource, "7");
                    send(template, queue, "current", current);
                    Received admitted = next(listeners.processed);
                    assertThat(admitted.body()).isEqualTo("current");
                    assertThat(admitted.bound()).as("the listener runs under the producer's fence").isEqualTo(current);

                    send(template, queue, "stale", Fence.of(resource, "5"));
                    Message dead = template.receive("fg-boot-dlq-" + suffix, 30_000);
                    assertThat(dead).as("the stale message reached the dead-letter queue within 30 s").isNotNull();
                    assertThat(new String(dead.getBody())).isEqualTo("stale");
                    assertThat(String.valueOf(dead.getMessageProperties().<Object>getHeader(MessageHeaders.REFUSAL)))
                            .isEqualTo("STALE");
                    assertThat(String.valueOf(dead.getMessageProperties().<Object>getHeader(MessageHeaders.HIGH_WATER)))
                            .isEqualTo("7");
                    assertThat(String.valueOf(dead.getMessageProperties().<Object>getHeader(MessageHeaders.REFUSAL_MESSAGE)))
                            .contains(resource, "older than the high-water mark");
                    assertThat(listeners.processed).as("the stale message did not reach the listener").isEmpty();
                });
    }

    @Test
    void withoutADeadLetterExchangePropertyAStaleMessageIsRejectedToTheQueuesOwn() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String resource = "account:" + suffix;
        runner(suffix).run(context -> {
            RabbitTemplate template = context.getBean(RabbitTemplate.class);
            Listeners listeners = context.getBean(Listeners.class);
            String queue = "fg-boot-orders-" + suffix;
            send(template, queue, "current", Fence.of(resource, "9"));
            assertThat(next(listeners.processed).bound()).isEqualTo(Fence.of(resource, "9"));

            send(template, queue, "stale", Fence.of(resource, "8"));
            Message dead = template.receive("fg-boot-dlq-" + suffix, 30_000);
            assertThat(dead).as("the stale message reached the dead-letter queue within 30 s").isNotNull();
            assertThat(new String(dead.getBody())).isEqualTo("stale");
            assertThat(dead.getMessageProperties().<Object>getHeader("x-death")).as("rejected by the broker's DLX").isNotNull();
            assertThat(listeners.processed).isEmpty();
        });
    }

    @Test
    void offWhenDisabled() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        runner(suffix).withPropertyValues("fenceguard.messaging.rabbit.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(FencingListenerAdvice.class).doesNotHaveBean(FencingMessagePostProcessor.class);
            Advice[] chain = context.getBean(SimpleRabbitListenerContainerFactory.class).getAdviceChain();
            assertThat(chain == null ? new Advice[0] : chain).noneMatch(FencingListenerAdvice.class::isInstance);
        });
    }

    private static void send(RabbitTemplate template, String queue, String body, Fence fence) {
        try (LeaseContext.Scope scope = LeaseContext.bind(Lease.presented(fence, "test"))) {
            template.convertAndSend("", queue, body);
        }
    }

    private static <T> T next(BlockingQueue<T> queue) throws InterruptedException {
        T item = queue.poll(30, TimeUnit.SECONDS);
        assertThat(item).as("arrived within 30 s").isNotNull();
        return item;
    }
}
