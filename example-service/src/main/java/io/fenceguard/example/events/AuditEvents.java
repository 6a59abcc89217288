package io.fenceguard.example.events;

import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.example.ledger.AuditDao;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Publishes each recorded audit entry as an event, after the transaction that recorded it commits (an event
 * for an entry that was rolled back would be a lie), under the lease the entry was recorded with: the
 * library's post-processor on the RabbitTemplate puts that lease's fence on the message.
 */
public class AuditEvents {

    private static final Logger log = LoggerFactory.getLogger(AuditEvents.class);

    private final RabbitTemplate rabbit;
    private final String exchange;

    public AuditEvents(RabbitTemplate rabbit, String exchange) {
        this.rabbit = rabbit;
        this.exchange = exchange;
    }

    /** Publishes {@code entry} of {@code accountId} once the current transaction (if any) has committed. */
    public void recorded(String accountId, AuditDao.Entry entry) {
        Fence fence = LeaseContext.requireValid().fence();
        Runnable publish = () -> {
            // After the commit the handler's scope has closed: the entry's fence is presented again for the header.
            try (LeaseContext.Scope ignored = LeaseContext.bind(Lease.presented(fence, "audit entry " + entry.seq()))) {
                rabbit.convertAndSend(exchange, AuditEventsConfiguration.ROUTING_KEY, AuditEvent.of(accountId, entry).text());
            } catch (RuntimeException e) {
                // The entry is committed and stays; only its event is missing (at most once, as in any
                // publish after commit without an outbox). Never turn a committed call into an error.
                log.warn("audit entry {} of account {} is recorded but its event was not published: {}", entry.seq(),
                        accountId, e.toString());
            }
        };
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    publish.run();
                }
            });
        } else {
            publish.run();
        }
    }
}
