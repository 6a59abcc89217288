package io.fenceguard.http.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.HandlerOrder;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.RequestSignatures;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.admission.TokenBound;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.http.filter.IdempotencyTest.Server;
import io.fenceguard.redis.RedisHighWaterStore;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.test.support.FailedHandlerSteps;
import io.fenceguard.test.support.TestRedisson;
import jakarta.servlet.http.HttpServletResponse;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * A request whose handler failed leaves no mark, through the servlet filter in a real Tomcat: after a bad
 * request (400) or a handler's exception with a newer token, an older, valid token is admitted; while a
 * newer token's handler is still running, the older one is refused as before. With and without handler
 * order, on the in-memory store and on Redis shared by two instances, and with request signatures on Redis,
 * where the nonce and the mark are decided in one script. Tokens above 1000: the Redis store's floor.
 */
class FailedHandlerTest {

    private static final SigningKeys KEYS = SigningKeys.of(Map.of("k1",
            "a-test-key-of-at-least-32-bytes!!".getBytes(StandardCharsets.US_ASCII)), "k1");

    @Test
    void aBadRequestWithANewerTokenLeavesNoMarkInMemory() throws Exception {
        aBadRequestLeavesNoMark(InMemoryHighWaterStore.create(), UnaryOperator.identity());
    }

    @Test
    void aBadRequestWithANewerTokenLeavesNoMarkInHandlerOrder() throws Exception {
        aBadRequestLeavesNoMark(InMemoryHighWaterStore.create(), filter -> filter.inHandlerOrder(HandlerOrder.create()));
    }

    @Test
    void aBadRequestWithANewerTokenLeavesNoMarkInRedis() throws Exception {
        aBadRequestLeavesNoMark(redis(), filter -> filter.inHandlerOrder(HandlerOrder.create()));
    }

    private void aBadRequestLeavesNoMark(HighWaterStore store, UnaryOperator<FencingFilter> configured) throws Exception {
        try (Server server = Server.start(configured.apply(FencingFilter.of(fence(store))), FailedHandlerTest::handle)) {
            String id = FailedHandlerSteps.newAccount();
            FailedHandlerSteps.aBadRequestLeavesNoMark((account, token, headers) -> post(server, account, token, headers),
                    id, () -> { });
            assertThat(server.post(id, 1010, "k-7", "{}", "X-Status", "404").statusCode()).isEqualTo(404);
            assertThat(server.post(id, 1009, "k-8", "{}").statusCode()).as("1010 failed: 1009 is current").isEqualTo(201);
            if (store instanceof RedisHighWaterStore redis) {
                assertThat(redis.reset(ResourceName.of("account:" + id), FencingToken.of(1009), FencingToken.of(1009)))
                        .as("the shared mark is 9").isTrue();
            }
        }
    }

    @Test
    void aFailedRequestOnOneInstanceLeavesNoMarkInTheStoreSharedWithAnother() throws Exception {
        HighWaterStore store = redis();
        try (Server a = Server.start(FencingFilter.of(fence(store)), FailedHandlerTest::handle);
                Server b = Server.start(FencingFilter.of(fence(store)), FailedHandlerTest::handle)) {
            String id = "acc-" + UUID.randomUUID().toString().substring(0, 8);
            assertThat(b.post(id, 1004, "k-1", "{}").statusCode()).isEqualTo(201);
            assertThat(a.post(id, 1009, "k-2", "{}", "X-Status", "400").statusCode()).isEqualTo(400);
            assertThat(b.post(id, 1004, "k-3", "{}").statusCode()).as("instance b finds no mark of 1009").isEqualTo(201);
            assertThat(a.post(id, 1009, "k-4", "{}").statusCode()).isEqualTo(201);
            assertThat(b.post(id, 1004, "k-5", "{}").statusCode()).as("1009 succeeded on a").isEqualTo(409);
        }
    }

    @Test
    void aNewerTokenStillInFlightHoldsAnOlderOneBack() throws Exception {
        inFlight(InMemoryHighWaterStore.create(), UnaryOperator.identity());
        inFlight(InMemoryHighWaterStore.create(), filter -> filter.inHandlerOrder(HandlerOrder.create()));
        inFlight(redis(), filter -> filter.inHandlerOrder(HandlerOrder.create()));
    }

    private void inFlight(HighWaterStore store, UnaryOperator<FencingFilter> configured) throws Exception {
        CountDownLatch running = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        try (Server server = Server.start(configured.apply(FencingFilter.of(fence(store))), (request, response) -> {
            if (request.getHeader("X-Wait") != null) {
                running.countDown();
                release.await(20, TimeUnit.SECONDS);
            }
            handle(request, response);
        })) {
            FailedHandlerSteps.aNewerTokenInFlightHoldsAnOlderOneBack(
                    (account, token, headers) -> post(server, account, token, headers), FailedHandlerSteps.newAccount(),
                    running, release::countDown);
        }
    }

    @Test
    void aFailedRequestSignedCallWithANewerTokenLeavesNoMarkInRedis() throws Exception {
        RedisHighWaterStore store = redis();
        try (Server server = Server.start(FencingFilter.of(signedFence(store)), FailedHandlerTest::handle)) {
            String id = FailedHandlerSteps.newAccount();
            FailedHandlerSteps.aBadRequestLeavesNoMark((account, token, headers) -> signed(server, account, token, headers),
                    id, () -> assertThat(store.reset(ResourceName.of("account:" + id), FencingToken.of(1004),
                            FencingToken.of(1004))).as("the shared mark is 1004").isTrue());
        }
    }

    @Test
    void aNewerRequestSignedCallStillInFlightHoldsAnOlderOneBackInRedis() throws Exception {
        CountDownLatch running = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        try (Server server = Server.start(FencingFilter.of(signedFence(redis())), (request, response) -> {
            if (request.getHeader("X-Wait") != null) {
                running.countDown();
                release.await(20, TimeUnit.SECONDS);
            }
            handle(request, response);
        })) {
            FailedHandlerSteps.aNewerTokenInFlightHoldsAnOlderOneBack(
                    (account, token, headers) -> signed(server, account, token, headers), FailedHandlerSteps.newAccount(),
                    running, release::countDown);
        }
    }

    /** A POST of {@code {}} with a request signature over its target, fencing header and body. */
    private static HttpResponse<String> signed(Server server, String id, long token, String... headers) {
        String fencing = FenceHeader.of(new Fence(ResourceName.of("account:" + id), FencingToken.of(token))).value();
        List<String> all = new ArrayList<>(List.of(headers));
        RequestSignatures.of(KEYS, FenceHeader.DEFAULT_NAME).sign("POST", server.uri("/entries/" + id), fencing,
                "{}".getBytes(StandardCharsets.UTF_8)).forEach((name, value) -> {
                    if (!name.equals(FenceHeader.DEFAULT_NAME)) { // the post sends the fencing header itself
                        all.add(name);
                        all.add(value);
                    }
                });
        return post(server, id, token, all.toArray(String[]::new));
    }

    private static HttpResponse<String> post(Server server, String id, long token, String... headers) {
        try {
            return server.post(id, token, "k-" + UUID.randomUUID(), "{}", headers);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Answers 201, or the status in {@code X-Status}, or throws with {@code X-Fail}. */
    private static void handle(jakarta.servlet.http.HttpServletRequest request, HttpServletResponse response)
            throws java.io.IOException {
        if (request.getHeader("X-Fail") != null) {
            throw new IllegalStateException("the handler fails");
        }
        String status = request.getHeader("X-Status");
        response.setStatus(status == null ? 201 : Integer.parseInt(status));
        response.setContentType("text/plain");
        response.getOutputStream().write("done".getBytes(StandardCharsets.UTF_8));
    }

    private static RedisHighWaterStore redis() {
        return RedisHighWaterStore.of(RedissonScriptClient.of(TestRedisson.shared()),
                "fg:failed:" + UUID.randomUUID().toString().substring(0, 8) + ":", TokenBound.atMost(1_000));
    }

    /** Request signatures required, nonces in the Redis store: nonce and mark decided in one script. */
    private static InboundFence signedFence(RedisHighWaterStore store) {
        return InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/entries/{id}", "account:{id}")), store, KEYS)
                .withRequestSignatures(store, true);
    }

    private static InboundFence fence(HighWaterStore store) {
        return InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/entries/{id}", "account:{id}")), store,
                SigningKeys.none());
    }
}
