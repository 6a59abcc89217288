package io.fenceguard.reactor.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.admission.IdempotencyKeys;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

/** POSTs to {@code /entries/{id}} fenced by {@code account:{id}} with an idempotency key, as the keyed WebFlux tests send them. */
final class KeyedPosts {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private KeyedPosts() {
    }

    /** The answer to a POST carrying {@code token} for {@code account:id} and {@code key}, with {@code headers} added. */
    static HttpResponse<String> post(NettyServer server, String id, long token, String key, String body,
            Duration timeout, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.baseUrl() + "/entries/" + id))
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .header(FenceHeader.DEFAULT_NAME,
                        FenceHeader.of(new Fence(ResourceName.of("account:" + id), FencingToken.of(token))).value())
                .header(IdempotencyKeys.HEADER, key)
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0) {
            request.headers(headers);
        }
        try {
            return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** How a keyed POST is sent: account, token (the floor added), key, body. */
    interface Poster {
        HttpResponse<String> post(String id, long token, String key, String body);
    }

    /**
     * The answers every keyed filter gives on {@code id}: a retry and a newer holder's resend answered from the first
     * response (applied once), a reused key with another body 422, a stale token 409 before any key is looked at, a
     * malformed key 400. Returns the first response.
     */
    static HttpResponse<String> answeredFromTheFirstResponse(Poster post, String id, java.util.concurrent.atomic.AtomicInteger applied) {
        HttpResponse<String> first = post.post(id, 5, "k-1", "{\"amount\":7}");
        assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
        assertThat(first.headers().firstValue(IdempotencyKeys.REPLAYED_HEADER)).isEmpty();
        HttpResponse<String> again = post.post(id, 5, "k-1", "{\"amount\":7}");
        assertThat(again.statusCode()).isEqualTo(201);
        assertThat(again.body()).as("the retry answered from the first response").isEqualTo(first.body());
        assertThat(again.headers().firstValue("Content-Type")).isEqualTo(first.headers().firstValue("Content-Type"));
        assertThat(again.headers().firstValue(IdempotencyKeys.REPLAYED_HEADER)).contains("true");
        HttpResponse<String> newer = post.post(id, 6, "k-1", "{\"amount\":7}");
        assertThat(newer.body()).as("a newer holder resending the first holder's request").isEqualTo(first.body());
        assertThat(applied.get()).as("applied once for three sends").isOne();

        HttpResponse<String> otherBody = post.post(id, 6, "k-1", "{\"amount\":8}");
        assertThat(otherBody.statusCode()).isEqualTo(422);
        assertThat(otherBody.body()).contains("urn:fenceguard:idempotency-key-reused");
        HttpResponse<String> stale = post.post(id, 5, "k-1", "{\"amount\":7}");
        assertThat(stale.statusCode()).as("admission comes first: a stale token is refused").isEqualTo(409);
        assertThat(stale.body()).contains("urn:fenceguard:stale-token");
        HttpResponse<String> badKey = post.post(id, 6, "k 2", "{\"amount\":7}");
        assertThat(badKey.statusCode()).isEqualTo(400);
        assertThat(badKey.body()).contains("urn:fenceguard:malformed-idempotency-key");
        assertThat(applied.get()).isOne();
        return first;
    }

    /** An account no other test uses. */
    static String account() {
        return "acc-" + UUID.randomUUID().toString().substring(0, 8);
    }
}
