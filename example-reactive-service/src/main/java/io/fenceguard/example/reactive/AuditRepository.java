package io.fenceguard.example.reactive;

import io.fenceguard.reactor.ReactiveLeaseContext;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.reactive.TransactionalOperator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Audit entries over R2DBC. {@code audit_heads} is a fenced table: bumping an account's sequence number
 * carries the caller's token (bound by the fencing filter in the Reactor Context), so PostgreSQL numbers
 * entries in token order and refuses a caller whose token is older than the last one recorded.
 */
@Repository
public class AuditRepository {

    private final DatabaseClient db;
    private final TransactionalOperator transactions;

    public AuditRepository(DatabaseClient db, TransactionalOperator transactions) {
        this.db = db;
        this.transactions = transactions;
    }

    public record Entry(long seq, long token, long amount, long balance) {
    }

    /** Records an entry under the fence of the request (errors without one). */
    public Mono<Entry> record(String accountId, long amount, long balance) {
        return ReactiveLeaseContext.requireValid().flatMap(lease -> {
            long token = lease.token().value();
            Mono<Long> seq = db.sql("INSERT INTO audit_heads (account_id, last_seq) VALUES (:id, 1) "
                            + "ON CONFLICT (account_id) DO UPDATE SET last_seq = audit_heads.last_seq + 1 RETURNING last_seq")
                    .bind("id", accountId).map(row -> row.get(0, Long.class)).one();
            return seq.flatMap(n -> db.sql("INSERT INTO audit_entries (account_id, seq, token, amount, balance) "
                            + "VALUES (:id, :seq, :token, :amount, :balance)")
                    .bind("id", accountId).bind("seq", n).bind("token", token).bind("amount", amount)
                    .bind("balance", balance).fetch().rowsUpdated()
                    .thenReturn(new Entry(n, token, amount, balance)));
        }).as(transactions::transactional);
    }

    public Flux<Entry> list(String accountId) {
        return db.sql("SELECT seq, token, amount, balance FROM audit_entries WHERE account_id = :id ORDER BY seq")
                .bind("id", accountId)
                .map(row -> new Entry(row.get(0, Long.class), row.get(1, Long.class), row.get(2, Long.class),
                        row.get(3, Long.class)))
                .all();
    }
}
