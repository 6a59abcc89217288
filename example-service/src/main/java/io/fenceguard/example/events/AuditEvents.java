package io.fenceguard.example.events;

import io.fenceguard.example.ledger.AuditDao;
import io.fenceguard.messaging.outbox.OutboxWriter;
import io.fenceguard.messaging.outbox.amqp.RabbitOutboxSender;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Each recorded audit entry's event, through the library's outbox: appended in the transaction that records the
 * entry, under the lease the entry is recorded with, so it commits with the entry or rolls back with it. The
 * library's relay (fenceguard.outbox.*) sends it to RabbitMQ after the commit, at least once, with the lease's
 * fence and the event's key; the listener applies each key once.
 */
public class AuditEvents {

    private static final Map<String, String> TEXT = Map.of(RabbitOutboxSender.CONTENT_TYPE, "text/plain");

    private final OutboxWriter outbox;
    private final DataSource dataSource;
    private final String exchange;

    public AuditEvents(OutboxWriter outbox, DataSource dataSource, String exchange) {
        this.outbox = outbox;
        this.dataSource = dataSource;
        this.exchange = exchange;
    }

    /** Appends the event of {@code entry} of {@code accountId} in the current transaction, the entry's. */
    public void recorded(String accountId, AuditDao.Entry entry) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("the event of audit entry " + entry.seq() + " of account " + accountId
                    + " is appended in the transaction that records the entry, and none is open");
        }
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            outbox.append(connection, exchange, AuditEventsConfiguration.ROUTING_KEY,
                    AuditEvent.of(accountId, entry).text().getBytes(StandardCharsets.UTF_8), TEXT);
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }
}
