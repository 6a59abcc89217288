package io.fenceguard.test.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The steps that show a request whose handler failed leaves no mark, the same for every inbound filter (servlet,
 * WebFlux, signed or not): the test's server fences {@code POST /entries/{id}} on {@code account:{id}}, and its
 * handler answers 201, or the status in {@code X-Status}, or fails with {@code X-Fail}, and with {@code X-Wait}
 * counts down {@code running} and waits until released. Tokens above 1000: the Redis store's floor.
 */
public final class FailedHandlerSteps {

    /** A POST to the account's entries with {@code token} in the fencing header, and header name-value pairs. */
    @FunctionalInterface
    public interface FencedPost {
        HttpResponse<String> post(String id, long token, String... headers);
    }

    private FailedHandlerSteps() {
    }

    /** A fresh account id. */
    public static String newAccount() {
        return "acc-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /**
     * After a bad request (400) and a handler's failure (500) with newer tokens, the older token 1004 is still
     * current; {@code afterTheFailures} then checks more if it wants; then 1009 succeeds and 1004 is stale.
     */
    public static void aBadRequestLeavesNoMark(FencedPost server, String id, Runnable afterTheFailures) {
        assertThat(server.post(id, 1004).statusCode()).isEqualTo(201);

        assertThat(server.post(id, 1009, "X-Status", "400").statusCode()).as("the handler's own answer")
                .isEqualTo(400);
        assertThat(server.post(id, 1008, "X-Fail", "1").statusCode()).as("the handler's failure").isEqualTo(500);
        HttpResponse<String> older = server.post(id, 1004);
        assertThat(older.statusCode()).as("1009 and 1008 failed: 1004 is still current; " + older.body())
                .isEqualTo(201);
        afterTheFailures.run();

        assertThat(server.post(id, 1009).statusCode()).as("a newer token that succeeds").isEqualTo(201);
        HttpResponse<String> stale = server.post(id, 1004);
        assertThat(stale.statusCode()).as("1009 succeeded: 1004 is stale").isEqualTo(409);
        assertThat(stale.body()).contains("urn:fenceguard:stale-token");
    }

    /**
     * Two requests with 1009, one to fail and one to succeed, both held in their handlers: meanwhile 1004 is refused;
     * once released, the one that failed sets nothing back, and 1004 stays refused.
     */
    public static void aNewerTokenInFlightHoldsAnOlderOneBack(FencedPost server, String id, CountDownLatch running,
                                                              Runnable release) throws Exception {
        assertThat(server.post(id, 1004).statusCode()).isEqualTo(201);
        CompletableFuture<HttpResponse<String>> failing = CompletableFuture.supplyAsync(
                () -> server.post(id, 1009, "X-Wait", "1", "X-Status", "422"));
        CompletableFuture<HttpResponse<String>> succeeding = CompletableFuture.supplyAsync(
                () -> server.post(id, 1009, "X-Wait", "1"));
        assertThat(running.await(20, TimeUnit.SECONDS)).isTrue();
        HttpResponse<String> held = server.post(id, 1004);
        assertThat(held.statusCode()).as("1009 is in flight: " + held.body()).isEqualTo(409);
        release.run();
        assertThat(failing.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(422);
        assertThat(succeeding.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
        assertThat(server.post(id, 1004).statusCode()).as("one 1009 succeeded").isEqualTo(409);
    }
}
