package io.fenceguard.messaging.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.jdbc.admission.JdbcHighWaterStore;
import io.fenceguard.messaging.FreshHighWaterStore;
import io.fenceguard.messaging.MessageAdmission;
import io.fenceguard.messaging.MessageHeaders;
import io.fenceguard.messaging.MessageIdempotency;
import io.fenceguard.messaging.PausableLeases;
import io.fenceguard.messaging.amqp.FencingListenerAdvice;
import io.fenceguard.messaging.amqp.RabbitFencing;
import io.fenceguard.messaging.outbox.amqp.RabbitOutboxSender;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.TestServers;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.amqp.core.BindingBuilder;
import org.springframework.amqp.core.DirectExchange;
import org.springframework.amqp.core.FanoutExchange;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The outbox end to end on PostgreSQL and a real RabbitMQ (skipped with the reason without them): business writes
 * and their outbox rows commit together under the lease's fence; a relay in a JVM of its own is killed with
 * SIGKILL after the broker acknowledged messages it had not yet deleted, a second relay sends the rest; the
 * consumer admits each message by its fence and applies it once by its key. A rolled-back write sends nothing,
 * and a message under an older fence than one already applied is dead-lettered with the reason.
 */
class OutboxCrashTest {

    private static final int COMMITTED = 20;
    private static final int BATCH = 5;
    /** The first relay dies after this many acknowledged sends: the second batch's first two. */
    private static final int KILLED_AFTER = 7;

    private final String suffix = UUID.randomUUID().toString().substring(0, 8);
    private final String resource = "order:" + suffix;
    private final String outbox = "fg_outbox_" + suffix;
    private final String orders = "fg_outbox_orders_" + suffix;
    private final String applied = "fg_outbox_applied_" + suffix;
    private final String exchange = "fg-outbox-" + suffix;
    private final String queue = "fg-outbox-q-" + suffix;
    private final String deadLetterExchange = "fg-outbox-dlx-" + suffix;
    private final String deadLetterQueue = "fg-outbox-dlq-" + suffix;
    private final AtomicInteger deliveries = new AtomicInteger();
    private final AtomicInteger repeats = new AtomicInteger();
    private final BlockingQueue<String> appliedKeys = new LinkedBlockingQueue<>();

    private URI broker;
    private JdbcEndpoint postgres;
    private PGSimpleDataSource db;
    private JdbcTemplate jdbc;
    private TransactionTemplate transactions;
    private CachingConnectionFactory connections;
    private RabbitAdmin admin;
    private SimpleMessageListenerContainer consumer;
    private PausableLeases pausable;
    private LeaseManager leases;
    private final OutboxWriter writer = OutboxWriter.of("fg_outbox_" + suffix);

    @BeforeEach
    void wire() throws Exception {
        broker = TestServers.rabbitmq();
        postgres = TestServers.postgres();
        db = new PGSimpleDataSource();
        db.setURL(postgres.url());
        db.setUser(postgres.user());
        db.setPassword(postgres.password());
        FenceguardMigrations.migrate(db);
        jdbc = new JdbcTemplate(db);
        // a table of this test's own, as the migration creates fenceguard_outbox
        jdbc.execute("CREATE TABLE " + outbox + " (LIKE fenceguard_outbox INCLUDING ALL)");
        jdbc.execute("CREATE TABLE " + orders + " (id SERIAL PRIMARY KEY, amount INT NOT NULL)");
        jdbc.execute("CREATE TABLE " + applied + " (idem_key VARCHAR(200) NOT NULL, body VARCHAR(200) NOT NULL, token BIGINT NOT NULL)");
        transactions = new TransactionTemplate(new DataSourceTransactionManager(db));

        connections = new CachingConnectionFactory(broker);
        connections.setPublisherConfirmType(CachingConnectionFactory.ConfirmType.SIMPLE);
        admin = new RabbitAdmin(connections);
        DirectExchange events = new DirectExchange(exchange, false, true);
        FanoutExchange dlx = new FanoutExchange(deadLetterExchange, false, true);
        Queue events1 = QueueBuilder.nonDurable(queue).build();
        Queue dlq = QueueBuilder.nonDurable(deadLetterQueue).build();
        admin.declareExchange(events);
        admin.declareExchange(dlx);
        admin.declareQueue(events1);
        admin.declareQueue(dlq);
        admin.declareBinding(BindingBuilder.bind(events1).to(events).with("order"));
        admin.declareBinding(BindingBuilder.bind(dlq).to(dlx));

        pausable = PausableLeases.onRedis();
        leases = pausable.leases();

        // the consumer: admitted by fence (marks on Redis), applied once by key (claims in PostgreSQL, in the
        // transaction that applies the message)
        MessageAdmission admission = MessageAdmission.of(FreshHighWaterStore.on("fg-outbox-" + suffix + ":"));
        MessageIdempotency idempotency = MessageIdempotency.of(
                JdbcHighWaterStore.of(db).joiningTransactions(new TransactionAwareDataSourceProxy(db)));
        consumer = new SimpleMessageListenerContainer(connections);
        consumer.setQueueNames(queue);
        consumer.setAdviceChain(FencingListenerAdvice.of(admission)
                .deadLetteringTo(RabbitFencing.deadLetterRecoverer(new RabbitTemplate(connections), deadLetterExchange)));
        consumer.setMessageListener(message -> {
            deliveries.incrementAndGet();
            Object key = message.getMessageProperties().getHeader(MessageHeaders.IDEMPOTENCY_KEY);
            String body = new String(message.getBody(), StandardCharsets.UTF_8);
            boolean ran = transactions.execute(status -> idempotency.applyOnce(key == null ? null : key.toString(),
                    message.getBody(), "amqp:" + queue, () -> jdbc.update("INSERT INTO " + applied
                            + " (idem_key, body, token) VALUES (?, ?, ?)", key.toString(), body,
                            LeaseContext.requireValid().token().value())));
            if (ran) {
                appliedKeys.add(key.toString());
            } else {
                repeats.incrementAndGet();
            }
        });
        consumer.start();
    }

    @AfterEach
    void unwire() {
        if (consumer != null) {
            consumer.stop();
        }
        if (pausable != null) {
            pausable.close();
        }
        if (admin != null) {
            admin.deleteQueue(queue);
            admin.deleteQueue(deadLetterQueue);
            admin.deleteExchange(exchange);
            admin.deleteExchange(deadLetterExchange);
        }
        if (connections != null) {
            connections.destroy();
        }
        if (jdbc != null) {
            for (String table : List.of(outbox, orders, applied)) {
                jdbc.execute("DROP TABLE IF EXISTS " + table);
            }
        }
    }

    @Test
    void aRelayKilledBetweenSendAndDeleteLosesNoEventAndTheConsumerAppliesEachOnce() throws Exception {
        List<String> committed = new ArrayList<>();
        String rolledBack;
        Fence fence;
        try (Lease lease = leases.acquire(resource, Duration.ofSeconds(5)); LeaseContext.Scope scope = LeaseContext.bind(lease)) {
            fence = lease.fence();
            for (int i = 1; i <= COMMITTED; i++) {
                int amount = i;
                committed.add(transactions.execute(status -> order(amount)));
            }
            // a business write that rolls back takes its outbox row with it
            String[] key = new String[1];
            assertThatThrownBy(() -> transactions.executeWithoutResult(status -> {
                key[0] = order(999);
                throw new IllegalStateException("the business rule refused the order");
            })).hasMessageContaining("business rule");
            rolledBack = key[0];
        }
        assertThat(rolledBack).isNotNull();
        assertThat(count("SELECT count(*) FROM " + orders)).isEqualTo(COMMITTED);
        assertThat(count("SELECT count(*) FROM " + outbox)).as("one row per committed write").isEqualTo(COMMITTED);

        Process first = relayProcess(KILLED_AFTER);
        try {
            String line = awaitLine(first, "SENT ", Duration.ofSeconds(60));
            assertThat(line).isEqualTo("SENT " + KILLED_AFTER);
            assertThat(new ProcessBuilder("kill", "-9", String.valueOf(first.pid())).inheritIO().start().waitFor()).isZero();
            assertThat(first.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(first.exitValue()).as("killed by SIGKILL").isEqualTo(128 + 9);
        } finally {
            first.destroyForcibly();
        }
        // the first batch's deletes committed; the second batch was sent in part and deleted not at all
        assertThat(count("SELECT count(*) FROM " + outbox)).isEqualTo(COMMITTED - BATCH);

        Process second = relayProcess(0);
        try {
            assertThat(awaitLine(second, "DRAINED ", Duration.ofSeconds(60))).isEqualTo("DRAINED " + (COMMITTED - BATCH));
            assertThat(second.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(second.exitValue()).isZero();
        } finally {
            second.destroyForcibly();
        }
        assertThat(count("SELECT count(*) FROM " + outbox)).isZero();

        // every committed write's event arrived and was applied once; the two sent before the kill came twice
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        // counted when each delivery's transaction has ended, not when it began: under load the last one may still run
        while (appliedKeys.size() + repeats.get() < KILLED_AFTER + COMMITTED - BATCH && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        Thread.sleep(300);   // a stray extra delivery would show now
        assertThat(deliveries).hasValue(KILLED_AFTER + COMMITTED - BATCH);
        assertThat(repeats).as("redeliveries skipped by key").hasValue(KILLED_AFTER - BATCH);
        assertThat(new ArrayList<>(appliedKeys)).containsExactlyInAnyOrderElementsOf(committed);
        assertThat(jdbc.queryForList("SELECT idem_key FROM " + applied + " GROUP BY idem_key HAVING count(*) > 1"))
                .as("no event applied twice").isEmpty();
        assertThat(count("SELECT count(*) FROM " + applied)).isEqualTo(COMMITTED);
        assertThat(count("SELECT count(*) FROM " + applied + " WHERE token = " + fence.token().value()))
                .as("applied under the writer's token").isEqualTo(COMMITTED);
        assertThat(jdbc.queryForList("SELECT idem_key FROM " + applied + " WHERE idem_key = ?", rolledBack))
                .as("the rolled-back write sent nothing").isEmpty();
        assertThat(admin.getQueueInfo(deadLetterQueue).getMessageCount()).isZero();
    }

    @Test
    void anEventUnderAnOlderFenceThanOneAppliedIsDeadLetteredWithItsReason() throws Exception {
        Fence older;
        try (Lease a = leases.acquire(resource, Duration.ofSeconds(5))) {
            older = a.fence();
        }
        String newerKey;
        Fence newer;
        try (Lease b = leases.acquire(resource, Duration.ofSeconds(5)); LeaseContext.Scope scope = LeaseContext.bind(b)) {
            newer = b.fence();
            newerKey = transactions.execute(status -> order(1));
        }
        assertThat(newer.token().value()).isGreaterThan(older.token().value());
        OutboxRelay relay = OutboxRelay.builder(db, new RabbitOutboxSender(new RabbitTemplate(connections), Duration.ofSeconds(10)))
                .table(outbox).build();
        assertThat(relay.relayOnce()).isOne();
        assertThat(appliedKeys.poll(30, TimeUnit.SECONDS)).isEqualTo(newerKey);

        // the former holder's write comes late (it was paused): its row carries its own, older fence
        String staleKey = UUID.randomUUID().toString();
        transactions.executeWithoutResult(status -> writer.append(DataSourceUtils.getConnection(db), older, staleKey,
                exchange, "order", "late".getBytes(StandardCharsets.UTF_8), Map.of("content-type", "text/plain")));
        assertThat(relay.relayOnce()).isOne();

        Message dead = new RabbitTemplate(connections).receive(deadLetterQueue, 30_000);
        assertThat(dead).as("dead-lettered within 30 s").isNotNull();
        assertThat(new String(dead.getBody(), StandardCharsets.UTF_8)).isEqualTo("late");
        Map<String, Object> headers = dead.getMessageProperties().getHeaders();
        assertThat(headers.get(MessageHeaders.REFUSAL)).hasToString("STALE");
        assertThat(headers.get(MessageHeaders.HIGH_WATER)).hasToString(String.valueOf(newer.token().value()));
        assertThat(headers.get(MessageHeaders.REFUSAL_MESSAGE).toString()).contains(resource, "older than the high-water mark");
        assertThat(headers.get(MessageHeaders.IDEMPOTENCY_KEY)).hasToString(staleKey);
        assertThat(dead.getMessageProperties().getContentType()).isEqualTo("text/plain");
        assertThat(jdbc.queryForList("SELECT idem_key FROM " + applied + " WHERE idem_key = ?", staleKey)).isEmpty();
        assertThat(count("SELECT count(*) FROM " + applied)).isOne();
        assertThat(deliveries).hasValue(1);
    }

    @Test
    void aWriteOutsideATransactionOrWithoutALeaseIsRefusedAndLeavesNoRow() throws Exception {
        try (Connection c = db.getConnection()) {
            try (Lease lease = leases.acquire(resource, Duration.ofSeconds(5)); LeaseContext.Scope scope = LeaseContext.bind(lease)) {
                assertThatThrownBy(() -> writer.append(c, exchange, "order", new byte[] {1}))
                        .isInstanceOf(IllegalStateException.class).hasMessageContaining("auto-commit");
            }
            c.setAutoCommit(false);
            assertThatThrownBy(() -> writer.append(c, exchange, "order", new byte[] {1}))
                    .isInstanceOf(io.fenceguard.core.FenceguardException.class).hasMessageContaining("no lease");
            assertThatThrownBy(() -> writer.append(c, Fence.of(resource, "5"), "k", exchange, "order", new byte[] {1},
                    Map.of(MessageHeaders.FENCE, "v1;r=x;t=9"))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("relay's own");
            c.commit();
        }
        assertThat(count("SELECT count(*) FROM " + outbox)).isZero();
    }

    /** One business write with its outbox row, in the caller's transaction; answers the event's key. */
    private String order(int amount) {
        Connection connection = DataSourceUtils.getConnection(db);
        jdbc.update("INSERT INTO " + orders + " (amount) VALUES (?)", amount);
        return writer.append(connection, exchange, "order", ("order " + amount).getBytes(StandardCharsets.UTF_8),
                Map.of("content-type", "text/plain"));
    }

    private long count(String sql) {
        return jdbc.queryForObject(sql, Long.class);
    }

    private Process relayProcess(int stopAfter) throws Exception {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), OutboxRelayProcess.class.getName(),
                postgres.url(), postgres.user(), postgres.password() == null ? "" : postgres.password(), outbox,
                broker.toString(), String.valueOf(BATCH), String.valueOf(stopAfter));
        assertThat(System.getProperty("java.class.path").split(File.pathSeparator)).as("the test class path")
                .hasSizeGreaterThan(5);
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /** The first line of {@code process}'s output that starts with {@code prefix}, within {@code timeout}. */
    private static String awaitLine(Process process, String prefix, Duration timeout) throws Exception {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        List<String> seen = new ArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    lines.add(line);
                }
            } catch (Exception ignored) {
                // the process ended
            }
        });
        reader.setDaemon(true);
        reader.start();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            String line = lines.poll(100, TimeUnit.MILLISECONDS);
            if (line != null) {
                seen.add(line);
                if (line.startsWith(prefix)) {
                    return line;
                }
            }
        }
        throw new AssertionError("the relay process printed no '" + prefix + "' within " + timeout + ":\n"
                + String.join("\n", seen));
    }
}
