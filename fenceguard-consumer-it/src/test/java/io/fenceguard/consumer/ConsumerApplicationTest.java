package io.fenceguard.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.StaleTokenException;
import io.fenceguard.testsupport.JdbcEndpoint;
import io.fenceguard.testsupport.RedisEndpoint;
import io.fenceguard.testsupport.TestServers;
import java.net.InetSocketAddress;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The application as a user builds it (starter, BOM, two fenceguard properties, its own V1 migration
 * seeding a fenced table, a lazy DataSource proxy over its pool) starts against real PostgreSQL and
 * Redis, fences its writes and sends the token downstream.
 */
@SpringBootTest
class ConsumerApplicationTest {

    private static final String SCHEMA = "fenceguard_consumer_it";
    private static final List<String> auditHeaders = new CopyOnWriteArrayList<>();
    private static HttpServer downstream;

    @Autowired
    AccountDao accounts;

    @Autowired
    JdbcTemplate jdbc;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) throws Exception {
        JdbcEndpoint postgres = TestServers.postgres();
        try (Connection c = postgres.connect(); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
            s.execute("CREATE SCHEMA " + SCHEMA);
        }
        String url = postgres.url() + (postgres.url().contains("?") ? "&" : "?") + "currentSchema=" + SCHEMA;
        registry.add("spring.datasource.url", () -> url);
        registry.add("spring.datasource.username", postgres::user);
        registry.add("spring.datasource.password", postgres::password);
        RedisEndpoint redis = TestServers.redis();
        registry.add("spring.data.redis.host", redis::host);
        registry.add("spring.data.redis.port", redis::port);

        downstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        downstream.createContext("/audit", exchange -> {
            auditHeaders.add(String.valueOf(exchange.getRequestHeaders().getFirst("Fencing-Token")));
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        downstream.start();
        registry.add("consumer.audit-url", () -> "http://127.0.0.1:" + downstream.getAddress().getPort());
    }

    @AfterAll
    static void stopDownstream() {
        if (downstream != null) {
            downstream.stop(0);
        }
    }

    @Test
    void theApplicationsOwnMigrationSeededTheFencedTable() {
        assertThat(accounts.balance("a2")).isEqualTo(200);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM flyway_schema_history WHERE success", Integer.class))
                .as("the application's history holds only its own migration").isEqualTo(1);
    }

    @Test
    void aFencedDepositStampsTheRowAndSendsTheTokenDownstream() {
        auditHeaders.clear();
        accounts.deposit("a1", 5);
        long token = jdbc.queryForObject("SELECT current_token FROM consumer_accounts WHERE id = 'a1'", Long.class);
        assertThat(token).isPositive();
        assertThat(auditHeaders).singleElement().asString().contains("account:a1").contains(Long.toString(token));

        long before = accounts.balance("a1");
        Lease stale = Lease.presented(Fence.of(ResourceName.of("account:a1"), FencingToken.of(token - 1)), "test");
        try (LeaseContext.Scope scope = LeaseContext.bind(stale)) {
            // with parameters, as fenced writes are written (a plain Statement write is refused before the database)
            assertThatThrownBy(() -> jdbc.update("UPDATE consumer_accounts SET balance = balance + ? WHERE id = ?",
                    1000, "a1"))
                    .satisfies(e -> assertThat(causes(e)).anyMatch(StaleTokenException.class::isInstance));
        }
        assertThat(accounts.balance("a1")).isEqualTo(before);

        accounts.deposit("a1", 1);
        long next = jdbc.queryForObject("SELECT current_token FROM consumer_accounts WHERE id = 'a1'", Long.class);
        assertThat(next).isGreaterThan(token);
        assertThat(accounts.balance("a1")).isEqualTo(before + 1);
    }

    private static List<Throwable> causes(Throwable e) {
        List<Throwable> all = new java.util.ArrayList<>();
        for (Throwable t = e; t != null && !all.contains(t); t = t.getCause()) {
            all.add(t);
        }
        return all;
    }
}
