package io.fenceguard.reactor.webflux;

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

    /** An account no other test uses. */
    static String account() {
        return "acc-" + UUID.randomUUID().toString().substring(0, 8);
    }
}
