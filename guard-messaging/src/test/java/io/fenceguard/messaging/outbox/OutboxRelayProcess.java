package io.fenceguard.messaging.outbox;

import io.fenceguard.messaging.outbox.amqp.RabbitOutboxSender;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

/**
 * An outbox relay in a JVM of its own, for {@link OutboxCrashTest}: {@code <jdbc-url> <user> <password> <table>
 * <amqp-uri> <batch-size> <stop-after>}. With {@code stop-after} &gt; 0 it stops in the middle of its work once that
 * many messages were acknowledged by the broker: it prints {@code SENT <n>} and waits (inside the batch's
 * transaction, before the rows are deleted) for the test to kill it with SIGKILL. Otherwise it drains the table,
 * prints {@code DRAINED <n>} and exits.
 */
public final class OutboxRelayProcess {

    private OutboxRelayProcess() {
    }

    public static void main(String[] args) throws Exception {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(args[0]);
        dataSource.setUser(args[1]);
        dataSource.setPassword(args[2]);
        String table = args[3];
        CachingConnectionFactory connections = new CachingConnectionFactory(URI.create(args[4]));
        connections.setPublisherConfirmType(CachingConnectionFactory.ConfirmType.SIMPLE);
        int batchSize = Integer.parseInt(args[5]);
        int stopAfter = Integer.parseInt(args[6]);
        RabbitOutboxSender rabbit = new RabbitOutboxSender(new RabbitTemplate(connections), Duration.ofSeconds(10));
        AtomicInteger sent = new AtomicInteger();
        OutboxSender sender = message -> {
            rabbit.send(message);
            int n = sent.incrementAndGet();
            if (n == stopAfter) {
                System.out.println("SENT " + n);
                System.out.flush();
                Thread.sleep(Long.MAX_VALUE);   // killed here: sent and acknowledged, not yet deleted
            }
        };
        OutboxRelay relay = OutboxRelay.builder(dataSource, sender).table(table).batchSize(batchSize).build();
        while (relay.relayOnce() > 0) {
            // until the table is empty
        }
        System.out.println("DRAINED " + sent.get());
        System.out.flush();
        connections.destroy();
        System.exit(0);
    }
}
