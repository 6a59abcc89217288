package io.fenceguard.example.ledger;

import java.net.http.HttpClient;
import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.MediaType;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientResponseException;

/**
 * Records audit entries through the guarded HTTP endpoint. The fencing header is added by the
 * client interceptor for the configured destination ({@code fenceguard.http.client.destinations}); this
 * class never touches it.
 */
@Component
public class AuditClient {

    private final RestClient client;

    public AuditClient(RestClient.Builder builder, @Value("${example.audit.base-url}") String baseUrl) {
        // Bounded calls: a hung audit call must not hold the deposit's lease, nor stop the relay's rounds.
        JdkClientHttpRequestFactory requests = new JdkClientHttpRequestFactory(
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build());
        requests.setReadTimeout(Duration.ofSeconds(15));
        this.client = builder.baseUrl(baseUrl).requestFactory(requests).build();
    }

    /**
     * The request body. A record, so that its JSON is the same bytes in every process: a resend after a
     * restart must match the first request's fingerprint (method, path, body digest), and the iteration
     * order of a {@code Map.of} changes from one JVM to the next.
     */
    record EntryBody(long amount, long balance) {
    }

    /**
     * Records an entry; {@code idempotencyKey} identifies it, so that sending it again (after a crash
     * before the outbox row was marked sent) is answered from the first response, not recorded twice.
     */
    public void record(String accountId, long amount, long balance, String idempotencyKey) {
        try {
            client.post().uri("/audit/{id}", accountId)
                    .header("Idempotency-Key", idempotencyKey)
                    .contentType(MediaType.APPLICATION_JSON)
                    .body(new EntryBody(amount, balance))
                    .retrieve()
                    .toBodilessEntity();
        } catch (RestClientResponseException e) {
            throw new AuditRejectedException(e.getStatusCode().value(), e.getResponseBodyAsString());
        }
    }
}
