package io.fenceguard.example;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.RedisEndpoint;
import io.fenceguard.test.support.TestServers;
import java.net.URI;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

/**
 * The token's whole way with profile {@code events}, on a real RabbitMQ (skipped with the reason without
 * one): a deposit (lease token T) → the ledger's row (DB) → the signed audit call (HTTP) → the audit entry
 * (DB) → an event carrying T (message) → the projection row written under T (DB). Then an event with an older
 * token for the same account is not processed: it reaches the dead-letter queue with the reason, and the
 * projection keeps T.
 */
class EventsIT {

    @Test
    void theDepositsTokenTravelsToTheProjectionAndAnOlderEventIsDeadLettered() throws Exception {
        URI broker = TestServers.rabbitmq();
        JdbcEndpoint server = TestServers.postgres();
        RedisEndpoint redis = TestServers.redis();
        String run = UUID.randomUUID().toString().substring(0, 8);
        String database = "fgevents_" + run;
        String exchange = "fgtest.events." + run;
        String queue = "fgtest.audit-events." + run;
        execute(server, "CREATE DATABASE " + database);
        CachingConnectionFactory connections = new CachingConnectionFactory(broker);
        RabbitAdmin admin = new RabbitAdmin(connections);
        try {
            List<String> args = new ArrayList<>(List.of("--spring.profiles.active=demo,events",
                    "--spring.rabbitmq.addresses=" + broker, "--example.events.exchange=" + exchange,
                    "--example.events.queue=" + queue));
            args.addAll(RealServersIT.serverArgs(server, database, redis));
            try (RunningJar app = RunningJar.start("events", args)) {
                assertThat(app.send("PUT", "/accounts/ev1", "{\"balance\":100}").statusCode()).isEqualTo(201);
                HttpResponse<String> deposit = app.send("POST", "/accounts/ev1/deposits", "{\"amount\":5}");
                assertThat(deposit.statusCode()).as(deposit.body()).isEqualTo(200);
                long token = ((Number) JsonPath.read(deposit.body(), "$.token")).longValue();

                String row = awaitProjection(app, "ev1", 105);
                assertThat(((Number) JsonPath.read(row, "$.token")).longValue())
                        .as("the projection row carries the deposit's token: %s", row).isEqualTo(token);
                assertThat(((Number) JsonPath.read(row, "$.lastSeq")).longValue()).isEqualTo(1);

                // An older holder's event: its token is below the mark the audit call set for account:ev1.
                RabbitTemplate rabbit = new RabbitTemplate(connections);
                MessageProperties headers = new MessageProperties();
                headers.setHeader("Fencing-Token", "v1;r=account:ev1;t=" + (token - 1));
                rabbit.send(exchange, "audit.recorded", new Message("ev1,2,1000,1105".getBytes(), headers));

                Message refused = rabbit.receive(queue + ".dlq", Duration.ofSeconds(30).toMillis());
                assertThat(refused).as("the stale event in the dead-letter queue").isNotNull();
                assertThat(refused.getMessageProperties().<Object>getHeader("fenceguard-refusal").toString())
                        .isEqualTo("STALE");
                assertThat(new String(refused.getBody())).isEqualTo("ev1,2,1000,1105");
                String after = app.send("GET", "/projection/ev1", null).body();
                assertThat(((Number) JsonPath.read(after, "$.balance")).longValue()).as(after).isEqualTo(105);
                assertThat(((Number) JsonPath.read(after, "$.token")).longValue()).isEqualTo(token);
            }
        } finally {
            try {
                admin.deleteQueue(queue);
                admin.deleteQueue(queue + ".dlq");
                admin.deleteExchange(exchange);
                admin.deleteExchange(exchange + ".dlx");
            } finally {
                connections.destroy();
            }
            try {
                execute(server, "DROP DATABASE " + database + " WITH (FORCE)");
            } catch (Exception e) {
                System.out.printf("could not drop %s: %s%n", database, e.getMessage());
            }
        }
    }

    /** The projection row of {@code account} once it shows {@code balance} (events are asynchronous). */
    private static String awaitProjection(RunningJar app, String account, long balance) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        String last = null;
        while (System.nanoTime() < deadline) {
            HttpResponse<String> read = app.send("GET", "/projection/" + account, null);
            last = read.statusCode() + " " + read.body();
            if (read.statusCode() == 200 && ((Number) JsonPath.read(read.body(), "$.balance")).longValue() == balance) {
                return read.body();
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no projection of " + account + " with balance " + balance + " within 30 s; last: "
                + last + "\n" + String.join("\n", app.logLines().stream()
                        .filter(l -> l.contains(" WARN ") || l.contains(" ERROR ")).toList()));
    }

    private static void execute(JdbcEndpoint server, String sql) throws Exception {
        try (Connection c = server.connect(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
