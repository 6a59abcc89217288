package io.fenceguard.example.events;

import org.springframework.amqp.core.Binding;
import org.springframework.amqp.core.BindingBuilder;
import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.DirectExchange;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The ledger's events (profile {@code events}): the exchange, the queue the projection reads, and the
 * dead-letter exchange and queue that refused events go to (fenceguard.messaging.rabbit.dead-letter-exchange).
 * The library's auto-configuration stamps what the RabbitTemplate sends and admits what the listener receives.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty("example.events.enabled")
public class AuditEventsConfiguration {

    static final String ROUTING_KEY = "audit.recorded";

    @Bean
    Declarables auditEventsTopology(@Value("${example.events.exchange}") String exchange,
            @Value("${example.events.queue}") String queue) {
        DirectExchange events = new DirectExchange(exchange, true, false);
        Queue projection = new Queue(queue, true);
        DirectExchange deadLetters = new DirectExchange(exchange + ".dlx", true, false);
        Queue refused = new Queue(queue + ".dlq", true);
        Binding toProjection = BindingBuilder.bind(projection).to(events).with(ROUTING_KEY);
        Binding toRefused = BindingBuilder.bind(refused).to(deadLetters).with(ROUTING_KEY);
        return new Declarables(events, projection, deadLetters, refused, toProjection, toRefused);
    }

    @Bean
    AuditEvents auditEvents(RabbitTemplate rabbit, @Value("${example.events.exchange}") String exchange) {
        return new AuditEvents(rabbit, exchange);
    }

    @Bean
    AuditEventListener auditEventListener(AuditProjection projection) {
        return new AuditEventListener(projection);
    }

    /** Projects each admitted event, under its token; a malformed one is refused, not retried. */
    public static class AuditEventListener {

        private final AuditProjection projection;

        AuditEventListener(AuditProjection projection) {
            this.projection = projection;
        }

        @RabbitListener(queues = "${example.events.queue}")
        public void onAuditRecorded(String body) {
            AuditEvent event;
            try {
                event = AuditEvent.parse(body);
            } catch (IllegalArgumentException e) {
                throw new org.springframework.amqp.AmqpRejectAndDontRequeueException(e.getMessage(), e);
            }
            projection.apply(event);
        }
    }
}
