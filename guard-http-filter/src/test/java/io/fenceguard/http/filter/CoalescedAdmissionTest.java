package io.fenceguard.http.filter;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.admission.Admission;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.core.Fence;
import io.fenceguard.http.filter.IdempotencyTest.Server;
import io.fenceguard.jdbc.admission.JdbcHighWaterStore;
import io.fenceguard.jdbc.admission.support.Stores;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Requests presenting the same fence together share store calls through the servlet filter, in a real Tomcat on
 * the JDBC store on PostgreSQL: twelve requests of one lease holder arriving while the store is asked cost a few
 * calls, not twelve, and every one is admitted; a stale token arriving with them is still refused. Asked for,
 * {@code withoutCoalescing()} asks the store once per request. The store answers each call after 150 ms, so that
 * the requests overlap on any machine.
 */
class CoalescedAdmissionTest {

    private static final int REQUESTS = 12;
    private static HikariDataSource dataSource;
    private static JdbcHighWaterStore jdbc;

    @BeforeAll
    static void start() {
        dataSource = Stores.postgres(Stores.migratedPostgresSchema(), REQUESTS + 2);
        jdbc = JdbcHighWaterStore.of(dataSource);
    }

    @AfterAll
    static void stop() {
        dataSource.close();
    }

    /** The JDBC store, counting its admissions and answering each one 150 ms late. */
    private static final class SlowCountingStore implements HighWaterStore {
        final AtomicInteger calls = new AtomicInteger();

        @Override
        public Admission admit(Fence presented) {
            calls.incrementAndGet();
            try {
                Thread.sleep(150);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            return jdbc.admit(presented);
        }

        @Override
        public HighWaterStore backend() {
            return jdbc;
        }
    }

    @Test
    void requestsOfOneFenceArrivingTogetherShareStoreCallsAndAreAllAdmitted() throws Exception {
        SlowCountingStore store = new SlowCountingStore();
        String id = UUID.randomUUID().toString().substring(0, 8);
        try (Server server = Server.start(FencingFilter.of(fence(store)), CoalescedAdmissionTest::handle)) {
            assertThat(server.post(id, 5, "k-first", "{}").statusCode()).as("the first claim").isEqualTo(201);
            store.calls.set(0);
            List<Integer> statuses = together(server, id, 5);
            assertThat(statuses).as("every request of the lease holder").containsOnly(201);
            assertThat(store.calls.get()).as("store calls for %d requests arriving together", REQUESTS)
                    .isLessThanOrEqualTo(REQUESTS / 2);
            assertThat(server.post(id, 4, "k-stale", "{}").statusCode()).as("an older token").isEqualTo(409);
        }
    }

    @Test
    void aStaleTokenAmongCoalescedRequestsIsRefused() throws Exception {
        SlowCountingStore store = new SlowCountingStore();
        String id = UUID.randomUUID().toString().substring(0, 8);
        try (Server server = Server.start(FencingFilter.of(fence(store)), CoalescedAdmissionTest::handle)) {
            assertThat(server.post(id, 7, "k-first", "{}").statusCode()).isEqualTo(201);
            ExecutorService pool = Executors.newFixedThreadPool(REQUESTS);
            try {
                CountDownLatch go = new CountDownLatch(1);
                List<Future<Integer>> current = new ArrayList<>();
                List<Future<Integer>> stale = new ArrayList<>();
                for (int i = 0; i < REQUESTS; i++) {
                    long token = i % 2 == 0 ? 7 : 6;
                    Future<Integer> answer = pool.submit(() -> {
                        go.await();
                        return server.post(id, token, "k-" + UUID.randomUUID(), "{}").statusCode();
                    });
                    (token == 7 ? current : stale).add(answer);
                }
                go.countDown();
                for (Future<Integer> answer : current) {
                    assertThat(answer.get(30, TimeUnit.SECONDS)).as("token 7, the mark").isEqualTo(201);
                }
                for (Future<Integer> answer : stale) {
                    assertThat(answer.get(30, TimeUnit.SECONDS)).as("token 6, below the mark").isEqualTo(409);
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void withoutCoalescingEveryRequestAsksTheStore() throws Exception {
        SlowCountingStore store = new SlowCountingStore();
        String id = UUID.randomUUID().toString().substring(0, 8);
        try (Server server = Server.start(FencingFilter.of(fence(store)).withoutCoalescing(),
                CoalescedAdmissionTest::handle)) {
            assertThat(server.post(id, 5, "k-first", "{}").statusCode()).isEqualTo(201);
            store.calls.set(0);
            assertThat(together(server, id, 5)).containsOnly(201);
            assertThat(store.calls.get()).as("one store call per request").isEqualTo(REQUESTS);
        }
    }

    /** The statuses of {@link #REQUESTS} requests with {@code token}, sent at once. */
    private static List<Integer> together(Server server, String id, long token) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(REQUESTS);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<HttpResponse<String>>> answers = new ArrayList<>();
            for (int i = 0; i < REQUESTS; i++) {
                answers.add(pool.submit(() -> {
                    go.await();
                    return server.post(id, token, "k-" + UUID.randomUUID(), "{}");
                }));
            }
            go.countDown();
            List<Integer> statuses = new ArrayList<>();
            for (Future<HttpResponse<String>> answer : answers) {
                statuses.add(answer.get(30, TimeUnit.SECONDS).statusCode());
            }
            return statuses;
        } finally {
            pool.shutdownNow();
        }
    }

    private static void handle(jakarta.servlet.http.HttpServletRequest request,
            jakarta.servlet.http.HttpServletResponse response) throws java.io.IOException {
        response.setStatus(201);
        response.getOutputStream().write("done".getBytes(StandardCharsets.UTF_8));
    }

    private static InboundFence fence(HighWaterStore store) {
        return InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/entries/{id}", "account:{id}")), store,
                SigningKeys.none());
    }
}
