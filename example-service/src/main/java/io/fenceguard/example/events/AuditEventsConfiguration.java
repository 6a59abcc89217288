package io.fenceguard.example.events;

import io.fenceguard.jdbc.admission.JdbcHighWaterStore;
import io.fenceguard.messaging.MessageHeaders;
import io.fenceguard.messaging.MessageIdempotency;
import io.fenceguard.messaging.outbox.OutboxWriter;
import java.nio.charset.StandardCharsets;
import javax.sql.DataSource;
import org.springframework.amqp.core.Binding;
import org.springframework.amqp.core.BindingBuilder;
import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.DirectExchange;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The ledger's events (profile {@code events}): the exchange, the queue the projection reads, and the
 * dead-letter exchange and queue that refused events go to (fenceguard.messaging.rabbit.dead-letter-exchange).
 * Events go through the library's outbox (fenceguard.outbox.*): written with the audit entry, relayed after its
 * commit with the entry's fence and a key; the library's listener advice admits them by fence, and the listener
 * applies each key once, in the transaction that updates the projection.
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
    AuditEvents auditEvents(OutboxWriter outbox, DataSource dataSource, @Value("${example.events.exchange}") String exchange) {
        return new AuditEvents(outbox, dataSource, exchange);
    }

    /**
     * Keys of applied events in fenceguard's idempotency table, claimed in the transaction that updates the
     * projection (through the transaction-aware proxy): a redelivered event is applied once, even across a crash.
     */
    @Bean
    MessageIdempotency auditEventIdempotency(DataSource dataSource) {
        return MessageIdempotency.of(JdbcHighWaterStore.of(dataSource)
                .joiningTransactions(new TransactionAwareDataSourceProxy(dataSource)));
    }

    @Bean
    AuditEventListener auditEventListener(AuditProjection projection, MessageIdempotency idempotency,
            TransactionTemplate transactions) {
        return new AuditEventListener(projection, idempotency, transactions);
    }

    /** Projects each admitted event once, under its token; a malformed one is refused, not retried. */
    public static class AuditEventListener {

        private final AuditProjection projection;
        private final MessageIdempotency idempotency;
        private final TransactionTemplate transactions;

        AuditEventListener(AuditProjection projection, MessageIdempotency idempotency, TransactionTemplate transactions) {
            this.projection = projection;
            this.idempotency = idempotency;
            this.transactions = transactions;
        }

        @RabbitListener(queues = "${example.events.queue}")
        public void onAuditRecorded(String body,
                @Header(name = MessageHeaders.IDEMPOTENCY_KEY, required = false) String key) {
            AuditEvent event;
            try {
                event = AuditEvent.parse(body);
            } catch (IllegalArgumentException e) {
                throw new org.springframework.amqp.AmqpRejectAndDontRequeueException(e.getMessage(), e);
            }
            transactions.executeWithoutResult(status -> idempotency.applyOnce(key,
                    body.getBytes(StandardCharsets.UTF_8), "audit events", () -> projection.apply(event)));
        }
    }
}
