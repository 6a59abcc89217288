package io.fenceguard.messaging.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.TestServers;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The outbox's shipped DDL (fenceguard-db's V5 script of each dialect, on a table of the test's own) and
 * the relay's SQL on PostgreSQL, MariaDB and H2: rows in id order with their fence, key, headers and payload; a
 * rolled-back write leaves nothing; and where the database skips locked rows, a second relay sends the rows a
 * first one holds no more than once and does not wait for them.
 */
class OutboxRelayDatabasesTest {

    private final String suffix = UUID.randomUUID().toString().substring(0, 8);
    private final String table = "fg_outbox_db_" + suffix;

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mysql", "h2"})
    void theRelaySendsCommittedRowsInOrderOnceEach(String dialect) throws Exception {
        DataSource db = dataSource(dialect);
        createTable(db, dialect);
        try {
            OutboxWriter writer = OutboxWriter.of(table);
            Fence fence = Fence.of("order:" + suffix, "17");
            Map<String, String> headers = Map.of("event-type", "placed", "note", "a=b&c=d é");
            List<String> keys = new ArrayList<>();
            try (Connection c = db.getConnection()) {
                c.setAutoCommit(false);
                for (int i = 0; i < 3; i++) {
                    String key = "k" + i + "-" + suffix;
                    writer.append(c, fence, key, "orders", i == 0 ? null : "rk", ("body " + i).getBytes(StandardCharsets.UTF_8),
                            i == 2 ? Map.of() : headers);
                    keys.add(key);
                }
                c.commit();
                writer.append(c, fence, "rolled-back-" + suffix, "orders", null, new byte[] {1}, Map.of());
                c.rollback();
                assertThatThrownBy(() -> writer.append(c, fence, keys.get(0), "orders", null, new byte[] {2}, Map.of()))
                        .as("a key is unique").isInstanceOf(FenceguardException.class).hasMessageContaining(keys.get(0));
                c.rollback();
            }
            List<OutboxMessage> sent = Collections.synchronizedList(new ArrayList<>());
            OutboxRelay relay = OutboxRelay.builder(db, sent::add).table(table).batchSize(10).build();
            assertThat(relay.relayOnce()).isEqualTo(3);
            assertThat(relay.relayOnce()).isZero();
            assertThat(sent).extracting(OutboxMessage::key).containsExactlyElementsOf(keys);
            assertThat(sent).extracting(OutboxMessage::id).isSorted();
            OutboxMessage first = sent.get(0);
            assertThat(first.fence()).isEqualTo(fence);
            assertThat(first.fenceHeader()).isEqualTo("v1;r=order:" + suffix + ";t=17");
            assertThat(first.destination()).isEqualTo("orders");
            assertThat(first.routingKey()).isNull();
            assertThat(sent.get(1).routingKey()).isEqualTo("rk");
            assertThat(first.headers()).isEqualTo(headers);
            assertThat(sent.get(2).headers()).isEmpty();
            assertThat(new String(sent.get(1).payload(), StandardCharsets.UTF_8)).isEqualTo("body 1");

            if (!dialect.equals("h2")) {
                twoRelaysShareTheTableWithoutWaiting(db, writer, fence);
            }
        } finally {
            try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + table);
            }
        }
    }

    /** The first relay holds its batch while its send hangs; the second sends the rest at once, and nothing twice. */
    private void twoRelaysShareTheTableWithoutWaiting(DataSource db, OutboxWriter writer, Fence fence) throws Exception {
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            for (int i = 0; i < 4; i++) {
                writer.append(c, fence, "shared-" + i + "-" + suffix, "orders", null, new byte[] {(byte) i}, Map.of());
            }
            c.commit();
        }
        List<String> sent = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        OutboxRelay slow = OutboxRelay.builder(db, message -> {
            holding.countDown();
            assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
            sent.add(message.key());
        }).table(table).batchSize(2).build();
        OutboxRelay fast = OutboxRelay.builder(db, message -> sent.add(message.key())).table(table).batchSize(2).build();
        CompletableFuture<Integer> first = CompletableFuture.supplyAsync(slow::relayOnce);
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(CompletableFuture.supplyAsync(fast::relayOnce).get(10, TimeUnit.SECONDS))
                .as("the other relay skips the locked rows instead of waiting").isEqualTo(2);
        release.countDown();
        assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo(2);
        assertThat(sent).containsExactlyInAnyOrder("shared-0-" + suffix, "shared-1-" + suffix, "shared-2-" + suffix,
                "shared-3-" + suffix);
        assertThat(fast.relayOnce()).isZero();
    }

    private DataSource dataSource(String dialect) {
        return switch (dialect) {
            case "postgresql" -> endpoint(TestServers.postgres());
            case "mysql" -> endpoint(TestServers.mariadb());
            default -> new DriverManagerDataSource("jdbc:h2:mem:" + table + ";DB_CLOSE_DELAY=-1");
        };
    }

    private static DataSource endpoint(JdbcEndpoint server) {
        return new DriverManagerDataSource(server.url(), server.user(), server.password() == null ? "" : server.password());
    }

    /** The shipped V5 script of {@code dialect}, on this test's table. */
    private void createTable(DataSource db, String dialect) throws Exception {
        String script;
        try (InputStream in = getClass().getResourceAsStream("/fenceguard/db/migration/" + dialect + "/outbox/V5__fenceguard_outbox.sql")) {
            assertThat(in).as("the shipped outbox script for " + dialect).isNotNull();
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        StringBuilder ddl = new StringBuilder();
        for (String line : script.split("\n")) {
            if (!line.startsWith("--")) {
                ddl.append(line).append('\n');
            }
        }
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute(ddl.toString().replace("fenceguard_outbox", table).replace(";", ""));
        }
    }
}
