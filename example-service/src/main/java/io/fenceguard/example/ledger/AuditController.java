package io.fenceguard.example.ledger;

import io.fenceguard.admission.FencedEndpoint;
import io.fenceguard.example.events.AuditEvents;
import java.net.URI;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.bind.annotation.RestController;

/** The audit trail: a fenced HTTP resource ({@code account:<id>}) that stores entries with their tokens. */
@RestController
public class AuditController {

    private final AuditDao audit;
    private final LedgerDao ledger;

    private final ObjectProvider<AuditEvents> events;
    private final TransactionTemplate transactions;

    public AuditController(AuditDao audit, LedgerDao ledger, ObjectProvider<AuditEvents> events,
            TransactionTemplate transactions) {
        this.audit = audit;
        this.ledger = ledger;
        this.events = events;
        this.transactions = transactions;
    }

    public record EntryBody(Long amount, Long balance) {
    }

    @PostMapping("/audit/{id}")
    @FencedEndpoint(resource = "account:{id}")
    public ResponseEntity<AuditDao.Entry> record(@PathVariable String id, @RequestBody EntryBody body) {
        AccountIds.require(id);
        if (body == null || body.amount() == null || body.balance() == null) {
            throw new IllegalArgumentException("amount and balance are required");
        }
        // profile events: the entry's event goes to the outbox in the entry's transaction (joined by the DAO's)
        AuditDao.Entry entry = transactions.execute(status -> {
            AuditDao.Entry recorded = audit.record(id, body.amount(), body.balance());
            events.ifAvailable(published -> published.recorded(id, recorded));
            return recorded;
        });
        return ResponseEntity.created(URI.create("/audit/" + id)).body(entry);
    }

    @GetMapping("/audit/{id}")
    public List<AuditDao.Entry> list(@PathVariable String id) {
        AccountIds.require(id);
        ledger.find(id).orElseThrow(() -> new AccountNotFoundException(id));
        return audit.list(id);
    }
}
