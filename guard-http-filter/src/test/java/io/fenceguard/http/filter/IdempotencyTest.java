package io.fenceguard.http.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.IdempotencyStore;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.http.filter.support.ThreadBoundTransactions;
import io.fenceguard.jdbc.admission.JdbcHighWaterStore;
import io.fenceguard.jdbc.admission.support.Stores;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * Idempotency keys through the servlet filter in a real Tomcat: a retried or replayed request is
 * answered from the first response and not applied twice, in memory and on PostgreSQL; with the
 * admission in the handler's transaction (PostgreSQL, H2) a failed handler leaves neither its writes,
 * nor the key, nor the raised mark.
 */
class IdempotencyTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void inMemoryRetryIsAnsweredFromTheFirstResponse() throws Exception {
        InMemoryHighWaterStore store = InMemoryHighWaterStore.create();
        AtomicInteger applied = new AtomicInteger();
        FencingFilter filter = FencingFilter.of(fence(store)).withIdempotency(store);
        try (Server server = Server.start(filter, (request, response) -> Entries.answer(response, applied.incrementAndGet()))) {
            retriesAreAnsweredOnce(server, applied);
        }
    }

    @Test
    void postgresqlRetryIsAnsweredFromTheFirstResponse() throws Exception {
        try (var ds = Stores.postgres(Stores.migratedPostgresSchema(), 4)) {
            JdbcHighWaterStore store = JdbcHighWaterStore.of(ds);
            AtomicInteger applied = new AtomicInteger();
            FencingFilter filter = FencingFilter.of(fence(store)).withIdempotency(store);
            try (Server server = Server.start(filter, (request, response) -> Entries.answer(response, applied.incrementAndGet()))) {
                retriesAreAnsweredOnce(server, applied);
            }
        }
    }

    @Test
    void aRetryWhileTheFirstRunsIsToldToRetryLaterInEveryStore() throws Exception {
        retryWhileTheFirstRuns(InMemoryHighWaterStore.create());
        try (var ds = Stores.postgres(Stores.migratedPostgresSchema(), 4)) {
            retryWhileTheFirstRuns(JdbcHighWaterStore.of(ds));   // the claim in the admission's statement
        }
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:idem" + UUID.randomUUID().toString().substring(0, 8) + ";DB_CLOSE_DELAY=-1");
        FenceguardMigrations.migrate(h2);
        retryWhileTheFirstRuns(JdbcHighWaterStore.of(h2));   // the claim after the admission
    }

    /** The first request holds its handler until the retry was answered: 409, and the handler ran once. */
    private static <S extends HighWaterStore & IdempotencyStore> void retryWhileTheFirstRuns(S store) throws Exception {
        java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        AtomicInteger applied = new AtomicInteger();
        FencingFilter filter = FencingFilter.of(fence(store)).withIdempotency(store);
        try (Server server = Server.start(filter, (request, response) -> {
            entered.countDown();
            assertThat(release.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            Entries.answer(response, applied.incrementAndGet());
        })) {
            String id = "acc-" + UUID.randomUUID().toString().substring(0, 8);
            java.util.concurrent.CompletableFuture<HttpResponse<String>> first =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                        try {
                            return server.post(id, 5, "k-1", "{\"amount\":7}");
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    });
            assertThat(entered.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            HttpResponse<String> retry = server.post(id, 5, "k-1", "{\"amount\":7}");
            release.countDown();
            assertThat(retry.statusCode()).as(store + ": " + retry.body()).isEqualTo(409);
            assertThat(retry.body()).contains("urn:fenceguard:idempotency-in-progress");
            assertThat(first.get(10, java.util.concurrent.TimeUnit.SECONDS).statusCode()).isEqualTo(201);
            assertThat(applied.get()).isOne();
        }
    }

    @Test
    void postgresqlAdmissionJoinsTheHandlersTransaction() throws Exception {
        try (var ds = Stores.postgres(Stores.migratedPostgresSchema(), 12)) {
            joinedTransaction(ds);
        }
    }

    @Test
    void h2AdmissionJoinsTheHandlersTransaction() throws Exception {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:idem" + UUID.randomUUID().toString().substring(0, 8) + ";DB_CLOSE_DELAY=-1");
        FenceguardMigrations.migrate(h2);
        joinedTransaction(h2);
    }

    private void joinedTransaction(DataSource ds) throws Exception {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE entries (id VARCHAR(64) NOT NULL, n INT NOT NULL)");
        }
        ThreadBoundTransactions transactions = new ThreadBoundTransactions(ds);
        JdbcHighWaterStore store = JdbcHighWaterStore.of(ds).joiningTransactions(transactions.dataSource());
        AtomicInteger applied = new AtomicInteger();
        FencingFilter filter = FencingFilter.of(fence(store)).withIdempotency(store).inTransaction(transactions);
        try (Server server = Server.start(filter, (request, response) -> {
            String id = request.getRequestURI().substring("/entries/".length());
            try (Connection c = transactions.dataSource().getConnection();
                    PreparedStatement insert = c.prepareStatement("INSERT INTO entries (id, n) VALUES (?, ?)")) {
                assertThat(c.getAutoCommit()).as("the handler runs in the admission's transaction").isFalse();
                insert.setString(1, id);
                insert.setInt(2, applied.incrementAndGet());
                insert.executeUpdate();
            }
            if (request.getHeader("X-Fail") != null) {
                throw new IllegalStateException("the handler fails after its write");
            }
            Entries.answer(response, applied.get());
        })) {
            retriesAreAnsweredOnce(server, applied);
            String id = "acc-" + UUID.randomUUID().toString().substring(0, 8);
            // A handler that fails after its write: nothing of it stays, not even the mark of its newer token.
            HttpResponse<String> failed = server.post(id, 9, "k-fail", "{\"n\":1}", "X-Fail", "1");
            assertThat(failed.statusCode()).isEqualTo(500);
            assertThat(Entries.rows(ds, id)).as("the failed handler's write rolled back").isZero();
            HttpResponse<String> older = server.post(id, 4, "k-other", "{\"n\":2}");
            assertThat(older.statusCode()).as("token 9's admission rolled back with its handler: 4 is current")
                    .isEqualTo(201);
            HttpResponse<String> retried = server.post(id, 9, "k-fail", "{\"n\":1}");
            assertThat(retried.statusCode()).as("the failed request's key was not recorded: it runs").isEqualTo(201);
            assertThat(retried.headers().firstValue(FencingFilter.IDEMPOTENT_REPLAYED)).isEmpty();
            assertThat(Entries.rows(ds, id)).isEqualTo(2);
            // Concurrent retries of one key: applied once.
            String busy = "acc-" + UUID.randomUUID().toString().substring(0, 8);
            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Future<HttpResponse<String>>> answers = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                answers.add(pool.submit(() -> server.post(busy, 3, "k-busy", "{\"n\":3}")));
            }
            Set<String> bodies = new java.util.HashSet<>();
            for (Future<HttpResponse<String>> answer : answers) {
                HttpResponse<String> response = answer.get();
                assertThat(response.statusCode()).as(response.body()).isIn(201, 409);
                if (response.statusCode() == 201) {
                    bodies.add(response.body());
                }
            }
            pool.shutdown();
            assertThat(bodies).as("every answered retry got the first response").hasSize(1);
            assertThat(Entries.rows(ds, busy)).as("eight concurrent sends of one key").isEqualTo(1);
        }
    }

    /** The same key twice, the same key with another body, a failed first try, a stale token. */
    private static void retriesAreAnsweredOnce(Server server, AtomicInteger applied) throws Exception {
        String id = "acc-" + UUID.randomUUID().toString().substring(0, 8);
        int before = applied.get();
        HttpResponse<String> first = server.post(id, 5, "k-1", "{\"amount\":7}");
        assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
        HttpResponse<String> again = server.post(id, 5, "k-1", "{\"amount\":7}");
        assertThat(again.statusCode()).isEqualTo(201);
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(again.headers().firstValue("Content-Type")).isEqualTo(first.headers().firstValue("Content-Type"));
        assertThat(again.headers().firstValue(FencingFilter.IDEMPOTENT_REPLAYED)).contains("true");
        HttpResponse<String> newer = server.post(id, 6, "k-1", "{\"amount\":7}");
        assertThat(newer.body()).as("a newer holder resending the first holder's request").isEqualTo(first.body());
        assertThat(applied.get() - before).as("applied once for three sends").isEqualTo(1);

        HttpResponse<String> otherBody = server.post(id, 6, "k-1", "{\"amount\":8}");
        assertThat(otherBody.statusCode()).isEqualTo(422);
        assertThat(otherBody.body()).contains("urn:fenceguard:idempotency-key-reused");
        HttpResponse<String> stale = server.post(id, 5, "k-1", "{\"amount\":7}");
        assertThat(stale.statusCode()).as("admission comes first: a stale token is refused").isEqualTo(409);
        HttpResponse<String> badKey = server.post(id, 6, "k 2", "{\"amount\":7}");
        assertThat(badKey.statusCode()).isEqualTo(400);
        assertThat(applied.get() - before).isEqualTo(1);
        HttpResponse<String> second = server.post(id, 6, "k-2", "{\"amount\":7}");
        assertThat(second.statusCode()).isEqualTo(201);
        assertThat(second.body()).isNotEqualTo(first.body());
        assertThat(applied.get() - before).isEqualTo(2);
    }

    private static InboundFence fence(HighWaterStore store) {
        return InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/entries/{id}", "account:{id}")), store,
                SigningKeys.none());
    }

    /** A handler's body. */
    interface Handler {
        void handle(HttpServletRequest request, HttpServletResponse response) throws Exception;
    }

    /** Tomcat with the filter in front of one servlet. */
    static final class Server implements AutoCloseable {
        private final Tomcat tomcat;
        private final int port;

        private Server(Tomcat tomcat, int port) {
            this.tomcat = tomcat;
            this.port = port;
        }

        static Server start(FencingFilter filter, Handler handler) throws Exception {
            Tomcat tomcat = new Tomcat();
            tomcat.setBaseDir(java.nio.file.Files.createTempDirectory("tomcat").toString());
            tomcat.setPort(0);
            Context context = tomcat.addContext("", null);
            Tomcat.addServlet(context, "handler", new HttpServlet() {
                @Override
                protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
                    try {
                        handler.handle(request, response);
                    } catch (IOException | RuntimeException e) {
                        throw e;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
            });
            context.addServletMappingDecoded("/*", "handler");
            FilterDef def = new FilterDef();
            def.setFilterName("fencing");
            def.setFilter(filter);
            context.addFilterDef(def);
            FilterMap map = new FilterMap();
            map.setFilterName("fencing");
            map.addURLPattern("/*");
            context.addFilterMap(map);
            tomcat.getConnector();
            tomcat.start();
            return new Server(tomcat, tomcat.getConnector().getLocalPort());
        }

        URI uri(String path) {
            return URI.create("http://127.0.0.1:" + port + path);
        }

        HttpResponse<String> post(String id, long token, String key, String body, String... headers) throws Exception {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/entries/" + id))
                    .header("Content-Type", "application/json")
                    .header(FenceHeader.DEFAULT_NAME,
                            FenceHeader.of(new Fence(ResourceName.of("account:" + id), FencingToken.of(token))).value())
                    .header(FencingFilter.IDEMPOTENCY_KEY, key)
                    .POST(HttpRequest.BodyPublishers.ofString(body));
            if (headers.length > 0) {
                request.headers(headers);
            }
            return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }

        @Override
        public void close() throws Exception {
            tomcat.stop();
            tomcat.destroy();
        }
    }
}
