package io.fenceguard.docs.messaging;

import io.fenceguard.core.annotation.Fenced;
import io.fenceguard.jdbc.admission.JdbcHighWaterStore;
import io.fenceguard.messaging.MessageHeaders;
import io.fenceguard.messaging.MessageIdempotency;
import io.fenceguard.messaging.outbox.OutboxWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.transaction.annotation.Transactional;

/** The outbox of docs/guide/messaging.md: the business write and its event in one transaction; the consumer applies each key once. */
class OutboxSample {

    private final DataSource dataSource;
    private final JdbcTemplate jdbc;
    private final OutboxWriter outbox;
    private final MessageIdempotency idempotency;

    OutboxSample(DataSource dataSource, OutboxWriter outbox) {
        this.dataSource = dataSource;
        this.jdbc = new JdbcTemplate(dataSource);
        this.outbox = outbox;
        // tag::outbox-idempotency[]
        this.idempotency = MessageIdempotency.of(JdbcHighWaterStore.of(dataSource)
                .joiningTransactions(new TransactionAwareDataSourceProxy(dataSource)));
        // end::outbox-idempotency[]
    }

    // tag::outbox[]
    @Fenced("'order:' + #id")
    @Transactional
    void place(String id, long amount) {
        jdbc.update("INSERT INTO orders (id, amount) VALUES (?, ?)", id, amount);
        // same transaction: the row commits with the order or rolls back with it
        outbox.append(DataSourceUtils.getConnection(dataSource), "orders", "order.placed",
                (id + "," + amount).getBytes(StandardCharsets.UTF_8), Map.of("content-type", "text/plain"));
    }

    @RabbitListener(queues = "orders")            // admitted by fence before it runs (Boot's factory)
    @Transactional
    void onPlaced(String body, @Header(MessageHeaders.IDEMPOTENCY_KEY) String key) {
        idempotency.applyOnce(key, body.getBytes(StandardCharsets.UTF_8), "orders",
                () -> jdbc.update("UPDATE totals SET total = total + ?", Long.parseLong(body.split(",")[1])));
    }
    // end::outbox[]
}
