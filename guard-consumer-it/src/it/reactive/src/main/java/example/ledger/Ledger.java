package example.ledger;

import io.fenceguard.reactor.ReactiveLeases;
import java.time.Duration;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.stereotype.Service;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;

/** Reactive writes under a lease on the account; each gives the token it wrote under. */
@Service
public class Ledger {

    private static final Duration WAIT = Duration.ofSeconds(5);

    private final ReactiveLeases leases;
    private final DatabaseClient db;
    private final WebClient audit;

    public Ledger(ReactiveLeases leases, DatabaseClient db, WebClient auditClient) {
        this.leases = leases;
        this.db = db;
        this.audit = auditClient;
    }

    public Mono<Long> open(String id, long balance) {
        return leases.withLease("account:" + id, WAIT, lease ->
                db.sql("INSERT INTO accounts (id, balance) VALUES (:id, :balance)")
                        .bind("id", id).bind("balance", balance)
                        .fetch().rowsUpdated()
                        .thenReturn(lease.token().value()));
    }

    /** Adds to the balance, then tells the audit endpoint: both carry the lease's token. */
    public Mono<Long> deposit(String id, long amount) {
        return leases.withLease("account:" + id, WAIT, lease ->
                db.sql("UPDATE accounts SET balance = balance + :amount WHERE id = :id")
                        .bind("amount", amount).bind("id", id)
                        .fetch().rowsUpdated()
                        .flatMap(rows -> rows == 1 ? audit.post().uri("/audit/{id}", id).retrieve().toBodilessEntity()
                                : Mono.error(new IllegalArgumentException("no account " + id)))
                        .thenReturn(lease.token().value()));
    }

    public Mono<Long> balance(String id) {
        return db.sql("SELECT balance FROM accounts WHERE id = :id").bind("id", id)
                .map(row -> row.get(0, Long.class)).one();
    }

    public Mono<Long> storedToken(String id) {
        return db.sql("SELECT current_token FROM accounts WHERE id = :id").bind("id", id)
                .map(row -> row.get(0, Long.class)).one();
    }
}
