package io.fenceguard.example.reactive;

import io.fenceguard.admission.FencedEndpoint;
import java.net.URI;
import java.util.regex.Pattern;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The audit trail, with the ledger's contract ({@code POST /audit/{id}} with amount and balance): a
 * fenced resource {@code account:<id>}, so the fencing filter admits only current tokens.
 */
@RestController
public class AuditController {

    private static final Pattern ACCOUNT_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private final AuditRepository audit;

    public AuditController(AuditRepository audit) {
        this.audit = audit;
    }

    public record EntryBody(Long amount, Long balance) {
    }

    @PostMapping("/audit/{id}")
    @FencedEndpoint(resource = "account:{id}")
    public Mono<ResponseEntity<AuditRepository.Entry>> record(@PathVariable String id, @RequestBody EntryBody body) {
        requireId(id);
        if (body == null || body.amount() == null || body.balance() == null) {
            return Mono.error(new IllegalArgumentException("amount and balance are required"));
        }
        return audit.record(id, body.amount(), body.balance())
                .map(entry -> ResponseEntity.created(URI.create("/audit/" + id)).body(entry));
    }

    @GetMapping("/audit/{id}")
    public Flux<AuditRepository.Entry> list(@PathVariable String id) {
        requireId(id);
        return audit.list(id);
    }

    private static void requireId(String id) {
        if (!ACCOUNT_ID.matcher(id).matches()) {
            throw new IllegalArgumentException("an account id is 1 to 64 of A-Z a-z 0-9 _ -");
        }
    }
}
