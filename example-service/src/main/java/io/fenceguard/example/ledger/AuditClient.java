package io.fenceguard.example.ledger;

import java.util.Map;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.MediaType;
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
        this.client = builder.baseUrl(baseUrl).build();
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
                    .body(Map.of("amount", amount, "balance", balance))
                    .retrieve()
                    .toBodilessEntity();
        } catch (RestClientResponseException e) {
            throw new AuditRejectedException(e.getStatusCode().value(), e.getResponseBodyAsString());
        }
    }
}
