package io.fenceguard.http.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.IdempotencyStore;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.Problem;
import io.fenceguard.core.RefusalListener;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.core.Fence;
import io.fenceguard.core.ResourceName;
import io.fenceguard.http.filter.IdempotencyTest.Server;
import io.fenceguard.http.filter.support.ThreadBoundTransactions;
import io.fenceguard.jdbc.admission.JdbcHighWaterStore;
import io.fenceguard.jdbc.admission.support.Stores;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Admitted requests whose work does not commit, through the servlet filter in a real Tomcat: the client is
 * answered 503 {@code not-committed} (never the handler's own answer, which was held back), and when a
 * transaction was open nothing of the request stays. A handler's own failure is not turned into a 503: it
 * reaches the container, and its idempotency key is forgotten.
 */
class UncommittedRequestTest {

    @Test
    void aCommitThatFailsIsAnsweredNotCommittedAndLeavesNothing() throws Exception {
        try (var ds = Stores.postgres(Stores.migratedPostgresSchema(), 4)) {
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                // Checked at commit: a handler that writes one entry twice passes, its commit fails.
                s.execute("CREATE TABLE entries (id VARCHAR(64) NOT NULL, n INT NOT NULL,"
                        + " CONSTRAINT one_entry UNIQUE (id, n) DEFERRABLE INITIALLY DEFERRED)");
            }
            ThreadBoundTransactions transactions = new ThreadBoundTransactions(ds);
            JdbcHighWaterStore store = JdbcHighWaterStore.of(ds).joiningTransactions(transactions.dataSource());
            BlockingQueue<Problem> refused = new LinkedBlockingQueue<>();
            AtomicInteger applied = new AtomicInteger();
            FencingFilter filter = FencingFilter.of(fence(store), listener(refused)).withIdempotency(store)
                    .inTransaction(transactions);
            try (Server server = Server.start(filter, (request, response) -> {
                String id = request.getRequestURI().substring("/entries/".length());
                int n = applied.incrementAndGet();
                int copies = request.getHeader("X-Twice") == null ? 1 : 2;
                for (int i = 0; i < copies; i++) {
                    try (Connection c = transactions.dataSource().getConnection();
                            PreparedStatement insert = c.prepareStatement("INSERT INTO entries (id, n) VALUES (?, ?)")) {
                        insert.setString(1, id);
                        insert.setInt(2, n);
                        insert.executeUpdate();
                    }
                }
                Entries.answer(response, n);
            })) {
                String id = "acc-" + UUID.randomUUID().toString().substring(0, 8);
                HttpResponse<String> uncommitted = server.post(id, 9, "k-1", "{\"n\":1}", "X-Twice", "1");
                assertThat(uncommitted.statusCode()).as(uncommitted.body()).isEqualTo(503);
                assertThat(uncommitted.body()).contains("urn:fenceguard:not-committed").doesNotContain("entry");
                assertThat(told(refused)).as("the listener is told").isEqualTo("urn:fenceguard:not-committed");
                assertThat(applied).as("the handler ran").hasValue(1);
                assertThat(Entries.rows(ds, id)).as("its writes rolled back").isZero();

                HttpResponse<String> older = server.post(id, 4, "k-2", "{\"n\":2}");
                assertThat(older.statusCode()).as("token 9's admission rolled back: 4 is current").isEqualTo(201);
                HttpResponse<String> retried = server.post(id, 9, "k-1", "{\"n\":1}");
                assertThat(retried.statusCode()).as("the key was not recorded: the retry runs").isEqualTo(201);
                assertThat(retried.headers().firstValue(FencingFilter.IDEMPOTENT_REPLAYED)).isEmpty();
                assertThat(Entries.rows(ds, id)).isEqualTo(2);
            }
        }
    }

    @Test
    void aResponseThatCannotBeRecordedIsAnsweredNotCommitted() throws Exception {
        InMemoryHighWaterStore store = InMemoryHighWaterStore.create();
        IdempotencyStore unrecorded = new IdempotencyStore() {
            @Override
            public Claim claim(Fence presented, String key, String fingerprint) {
                return store.claim(presented, key, fingerprint);
            }

            @Override
            public void complete(ResourceName resource, String key, RecordedResponse response) {
                throw new IllegalStateException("the first response could not be recorded");
            }

            @Override
            public void abandon(ResourceName resource, String key) {
                store.abandon(resource, key);
            }
        };
        BlockingQueue<Problem> refused = new LinkedBlockingQueue<>();
        AtomicInteger applied = new AtomicInteger();
        FencingFilter filter = FencingFilter.of(fence(store), listener(refused)).withIdempotency(unrecorded);
        try (Server server = Server.start(filter, (request, response) -> Entries.answer(response, applied.incrementAndGet()))) {
            String id = "acc-" + UUID.randomUUID().toString().substring(0, 8);
            HttpResponse<String> answer = server.post(id, 5, "k-1", "{\"n\":1}");
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(503);
            assertThat(answer.body()).contains("urn:fenceguard:not-committed").doesNotContain("entry");
            assertThat(told(refused)).as("the listener is told").isEqualTo("urn:fenceguard:not-committed");
            assertThat(applied).hasValue(1);
        }
    }

    @Test
    void aFailingHandlerReachesTheContainerAndItsKeyIsForgotten() throws Exception {
        InMemoryHighWaterStore store = InMemoryHighWaterStore.create();
        BlockingQueue<Problem> refused = new LinkedBlockingQueue<>();
        AtomicInteger applied = new AtomicInteger();
        FencingFilter filter = FencingFilter.of(fence(store), listener(refused)).withIdempotency(store);
        try (Server server = Server.start(filter, (request, response) -> {
            int n = applied.incrementAndGet();
            if (request.getHeader("X-Fail") != null) {
                throw new IllegalStateException("the handler fails");
            }
            Entries.answer(response, n);
        })) {
            String id = "acc-" + UUID.randomUUID().toString().substring(0, 8);
            HttpResponse<String> failed = server.post(id, 5, "k-1", "{\"n\":1}", "X-Fail", "1");
            assertThat(failed.statusCode()).as("the container's answer to the handler's exception").isEqualTo(500);
            assertThat(failed.body()).doesNotContain("urn:fenceguard:");
            HttpResponse<String> retried = server.post(id, 5, "k-1", "{\"n\":1}");
            assertThat(retried.statusCode()).as("the failed request's key was forgotten: the retry runs").isEqualTo(201);
            assertThat(retried.headers().firstValue(FencingFilter.IDEMPOTENT_REPLAYED)).isEmpty();
            assertThat(applied).hasValue(2);
            assertThat(refused).as("neither was a refusal of the filter").isEmpty();
        }
    }

    private static InboundFence fence(HighWaterStore store) {
        return InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/entries/{id}", "account:{id}")), store,
                SigningKeys.none());
    }

    private static RefusalListener listener(BlockingQueue<Problem> refused) {
        return refusal -> refused.add(refusal.original(Problem.class).orElseThrow());
    }

    /** The type of the next refusal the listener is told of; the filter tells it after the answer is sent. */
    private static String told(BlockingQueue<Problem> refused) throws InterruptedException {
        Problem problem = refused.poll(10, TimeUnit.SECONDS);
        return problem == null ? null : problem.type();
    }
}
