package io.fenceguard.http.filter;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.admission.Destinations;
import io.fenceguard.admission.FencedEndpoint;
import io.fenceguard.admission.OutboundFence;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.http.filter.spring.FencingClientHttpRequestInterceptor;
import io.fenceguard.http.filter.support.Instances;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.StaleTokenException;
import io.fenceguard.jdbc.admission.support.Stores;
import io.fenceguard.test.support.faults.PausableLeaseProvider;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;

/**
 * The whole chain: lease → header via RestClient → filter → SQL fence by fenceguard-jdbc with the
 * caller's token. A holder paused past its lease is refused at the filter; when its call slips past
 * the filter (a second instance whose in-memory store never saw the newer token), the database
 * refuses the write. Leases come from the in-memory provider: what is tested here is the HTTP and SQL
 * side, which is the same whatever the lock store.
 */
class EndToEndTest {

    static Instances instances = new Instances();
    static HikariDataSource raw;
    static ConfigurableApplicationContext fenced;
    static int fencedPort;
    static int slipping;

    /** The resource server's own writes, fenced with the inbound token. */
    @RestController
    static class Ledger {
        private final FencedDataSource ledger;

        Ledger(FencedDataSource ledger) {
            this.ledger = ledger;
        }

        @FencedEndpoint(resource = "account:{id}")
        @PutMapping("/ledger/{id}")
        ResponseEntity<String> setBalance(@PathVariable int id, @RequestParam long balance) throws SQLException {
            try (Connection c = ledger.getConnection();
                    PreparedStatement update = c.prepareStatement("UPDATE e2e_ledger SET balance = ? WHERE id = ?")) {
                update.setLong(1, balance);
                update.setInt(2, id);
                return ResponseEntity.ok("updated " + update.executeUpdate());
            } catch (StaleTokenException e) {
                return ResponseEntity.status(409).body("database refused token " + e.token());
            }
        }
    }

    @BeforeAll
    static void start() throws Exception {
        String schema = Stores.migratedPostgresSchema();
        raw = Stores.postgres(schema, 8);
        try (Connection c = raw.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE e2e_ledger (id INT PRIMARY KEY, balance BIGINT NOT NULL, current_token BIGINT)");
            s.execute("INSERT INTO e2e_ledger (id, balance) VALUES (1, 100)");
        }
        FencedDataSource ledger = FencedDataSource.wrap(raw,
                FencingConfig.builder().fence("e2e_ledger").build());

        Map<String, Object> properties = new LinkedHashMap<>(Instances.defaults());
        fenced = instances.start("fenced", properties, ctx -> {
            ctx.registerBean(FencedDataSource.class, () -> ledger);
            ctx.registerBean(Ledger.class);
        });
        fencedPort = Instances.port(fenced);
        slipping = Instances.port(instances.start("slipping", properties, ctx -> {
            ctx.registerBean(FencedDataSource.class, () -> ledger);
            ctx.registerBean(Ledger.class);
        }));
    }

    @AfterAll
    static void stop() {
        instances.close();
        raw.close();
    }

    @Test
    void pausedHolderIsRefusedAtTheFilterAndAtTheDatabase() throws Exception {
        OutboundFence fence = OutboundFence.of(
                Destinations.of("http://127.0.0.1:" + fencedPort, "http://127.0.0.1:" + slipping),
                fenced.getBean(SigningKeys.class));
        RestClient client = RestClient.builder().requestInterceptor(new FencingClientHttpRequestInterceptor(fence))
                .build();
        LeaseConfig config = LeaseConfig.builder().leaseTime(Duration.ofMillis(800)).build();
        InMemoryLeaseProvider store = InMemoryLeaseProvider.create();
        PausableLeaseProvider oldHolders = PausableLeaseProvider.wrap(store);
        String fencedUrl = "http://127.0.0.1:" + fencedPort + "/ledger/1";
        String slippingUrl = "http://127.0.0.1:" + slipping + "/ledger/1";

        try (LeaseManager oldManager = LeaseManager.of(oldHolders, config);
                LeaseManager newManager = LeaseManager.of(store, config)) {
            Lease old = oldManager.acquire("account:1", Duration.ofSeconds(2));
            String oldHeader;
            try (LeaseContext.Scope scope = LeaseContext.bind(old)) {
                assertThat(client.put().uri(fencedUrl + "?balance=150").retrieve().body(String.class))
                        .isEqualTo("updated 1");
                // The old holder checks its lease and prepares its next call, then stops.
                oldHeader = fence.headerFor(URI.create(fencedUrl)).orElseThrow();
            }
            oldHolders.pauseAllRenewals(Duration.ofHours(1));
            assertThat(row()).containsExactly(150L, old.token().value());

            try (Lease newer = newManager.acquire("account:1", Duration.ofSeconds(10));
                    LeaseContext.Scope scope = LeaseContext.bind(newer)) {
                assertThat(newer.token()).isGreaterThan(old.token());
                assertThat(client.put().uri(fencedUrl + "?balance=1150").retrieve().body(String.class))
                        .isEqualTo("updated 1");
            }
            long newerToken = row()[1];

            // The old holder wakes up and sends what it prepared.
            ResponseEntity<String> atFilter = client.put().uri(fencedUrl + "?balance=200")
                    .header("Fencing-Token", oldHeader).retrieve().onStatus(s -> true, (rq, rs) -> { })
                    .toEntity(String.class);
            assertThat(atFilter.getStatusCode().value()).isEqualTo(409);
            assertThat(atFilter.getBody()).contains("\"token\":\"" + old.token() + "\"",
                    "\"highWater\":\"" + newerToken + "\"");

            ResponseEntity<String> atDatabase = client.put().uri(slippingUrl + "?balance=200")
                    .header("Fencing-Token", oldHeader).retrieve().onStatus(s -> true, (rq, rs) -> { })
                    .toEntity(String.class);
            assertThat(atDatabase.getStatusCode().value()).isEqualTo(409);
            assertThat(atDatabase.getBody()).isEqualTo("database refused token " + old.token());

            assertThat(row()).containsExactly(1150L, newerToken);
        }
    }

    private static long[] row() throws SQLException {
        try (Connection c = raw.getConnection(); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT balance, current_token FROM e2e_ledger WHERE id = 1")) {
            r.next();
            return new long[] {r.getLong(1), r.getLong(2)};
        }
    }
}
