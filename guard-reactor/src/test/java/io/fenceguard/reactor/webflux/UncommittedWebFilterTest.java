package io.fenceguard.reactor.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.SigningKeys;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Mono;

/**
 * With the admission in the handler's transaction, the response is held until the commit, on a real Netty server:
 * when the commit fails after a handler that succeeded, the client is told 503 {@code not-committed}, never the
 * handler's 201; a handler's own answer of 400 or more is rolled back and then sent as it was.
 */
class UncommittedWebFilterTest {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void aSuccessWhoseCommitFailsIsAnswered503AndAFailureIsSentAsItWas() throws Exception {
        AtomicInteger commits = new AtomicInteger();
        AtomicInteger rollbacks = new AtomicInteger();
        // A transaction that runs the work, then fails its commit; a rollback succeeds.
        ReactiveAdmissionTransaction failingCommit = (check, scheduler, rest) -> Mono.fromCallable(check)
                .subscribeOn(scheduler).flatMap(rest)
                .flatMap(commit -> {
                    if (!commit) {
                        rollbacks.incrementAndGet();
                        return Mono.empty();
                    }
                    commits.incrementAndGet();
                    return Mono.error(new IllegalStateException("the commit failed"));
                });
        InboundFence fence = InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/entries/{id}", "account:{id}")),
                InMemoryHighWaterStore.create(), SigningKeys.none());
        try (NettyServer server = NettyServer.start(WebHttpHandlerBuilder.webHandler(RouterFunctions.toWebHandler(
                RouterFunctions.route().POST("/entries/{id}", request -> {
                    String status = request.headers().firstHeader("X-Status");
                    return ServerResponse.status(status == null ? HttpStatus.CREATED
                            : HttpStatus.valueOf(Integer.parseInt(status))).header("X-Handler", "1").bodyValue("entry-recorded");
                }).build())).filter(FencingWebFilter.of(fence).inTransaction(failingCommit)).build())) {
            String id = "acc-" + UUID.randomUUID().toString().substring(0, 8);
            HttpResponse<String> uncommitted = post(server, id, 5, null);
            assertThat(uncommitted.statusCode()).isEqualTo(503);
            assertThat(uncommitted.body()).contains("urn:fenceguard:not-committed").doesNotContain("entry-recorded");
            assertThat(uncommitted.headers().firstValue("X-Handler")).as("nothing of the held answer").isEmpty();
            assertThat(commits.get()).isOne();

            HttpResponse<String> refused = post(server, id, 6, "409");
            assertThat(refused.statusCode()).as("the handler's own answer, after the rollback").isEqualTo(409);
            assertThat(refused.body()).isEqualTo("entry-recorded");
            assertThat(rollbacks.get()).isOne();
        }
    }

    private HttpResponse<String> post(NettyServer server, String id, long token, String status) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.baseUrl() + "/entries/" + id))
                .timeout(Duration.ofSeconds(30))
                .header("Fencing-Token", FenceHeaders.unsigned("account:" + id, token))
                .POST(HttpRequest.BodyPublishers.ofString("{}"));
        if (status != null) {
            request.header("X-Status", status);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
