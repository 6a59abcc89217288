package example.ledger;

import static example.ledger.SelfCheck.causes;
import static example.ledger.SelfCheck.require;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.ResourceName;
import io.fenceguard.reactor.ReactiveLeaseContext;
import io.fenceguard.reactor.r2dbc.R2dbcStaleTokenException;
import java.util.UUID;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.stereotype.Component;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;

/** What the running application must show: stamped rows, the token downstream, a stale token refused at both. */
@Component
class LedgerChecks {

    private final Ledger ledger;
    private final AuditController audit;
    private final DatabaseClient db;
    private final WebClient auditClient;

    LedgerChecks(Ledger ledger, AuditController audit, DatabaseClient db, WebClient auditClient) {
        this.ledger = ledger;
        this.audit = audit;
        this.db = db;
        this.auditClient = auditClient;
    }

    void run() {
        // a new account each run: a resource whose tokens nobody else has seen
        String id = "a-" + UUID.randomUUID();
        long opened = ledger.open(id, 100).block();
        require(ledger.storedToken(id).block() == opened, "the new row carries token " + ledger.storedToken(id).block()
                + ", not the lease's " + opened);

        long deposited = ledger.deposit(id, 5).block();
        require(deposited > opened, "the second lease's token " + deposited + " is not above the first's " + opened);
        require(ledger.storedToken(id).block() == deposited, "the updated row carries token "
                + ledger.storedToken(id).block() + ", not the lease's " + deposited);
        String header = audit.lastToken(id);
        require(header != null && header.contains("account:" + id) && header.contains(Long.toString(deposited)),
                "the audit call carried Fencing-Token " + header + ", not account:" + id + " at " + deposited);

        // the first lease's token, presented after the second's: refused at the row and at the endpoint
        Lease stale = Lease.presented(Fence.of(ResourceName.of("account:" + id), FencingToken.of(opened)), "self-check");
        try {
            db.sql("UPDATE accounts SET balance = balance + :amount WHERE id = :id").bind("amount", 1000).bind("id", id)
                    .fetch().rowsUpdated().contextWrite(ReactiveLeaseContext.with(stale)).block();
            throw new IllegalStateException("an R2DBC write with the older token " + opened + " was accepted");
        } catch (RuntimeException e) {
            require(causes(e).stream().anyMatch(R2dbcStaleTokenException.class::isInstance),
                    "the stale R2DBC write failed, but not with R2dbcStaleTokenException: " + e);
        }
        require(ledger.balance(id).block() == 105, "balance " + ledger.balance(id).block()
                + " after the refused write, not 105");
        try {
            auditClient.post().uri("/audit/{id}", id).retrieve().toBodilessEntity()
                    .contextWrite(ReactiveLeaseContext.with(stale)).block();
            throw new IllegalStateException("the audit endpoint admitted the older token " + opened);
        } catch (WebClientResponseException e) {
            require(e.getStatusCode().value() == 409, "the audit endpoint answered the older token with "
                    + e.getStatusCode() + ", not 409: " + e.getResponseBodyAsString());
        }
        require(audit.lastToken(id).equals(header), "the refused call reached the handler");
        System.out.println("reactive: rows stamped with tokens " + opened + " and " + deposited + ", header '" + header
                + "' downstream, token " + opened + " refused by R2DBC and by the endpoint (409) afterwards");
    }
}
