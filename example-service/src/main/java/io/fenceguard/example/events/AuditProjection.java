package io.fenceguard.example.events;

import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code audit_projection}: per account, the last audit entry its events brought. A fenced table: the
 * listener writes under the token of the event (bound by the library's listener advice), so the row keeps the
 * token of the last writer, and an older holder's event is refused by the database as well.
 */
@Repository
public class AuditProjection {

    private final JdbcClient jdbc;
    private final TransactionTemplate transactions;

    public AuditProjection(DataSource dataSource, TransactionTemplate transactions) {
        this.jdbc = JdbcClient.create(dataSource);
        this.transactions = transactions;
    }

    public record Row(String accountId, long lastSeq, long balance, Long token) {
    }

    /** Applies {@code event}; an event at or before the last one applied changes nothing (redelivery). */
    public void apply(AuditEvent event) {
        transactions.executeWithoutResult(status -> {
            int updated = jdbc.sql("UPDATE audit_projection SET last_seq = ?, balance = ? WHERE account_id = ? AND last_seq < ?")
                    .params(event.seq(), event.balance(), event.accountId(), event.seq()).update();
            if (updated == 0 && find(event.accountId()).isEmpty()) {
                jdbc.sql("INSERT INTO audit_projection (account_id, last_seq, balance) VALUES (?, ?, ?)")
                        .params(event.accountId(), event.seq(), event.balance()).update();
            }
        });
    }

    public Optional<Row> find(String accountId) {
        return jdbc.sql("SELECT account_id, last_seq, balance, current_token FROM audit_projection WHERE account_id = ?")
                .param(accountId)
                .query((rs, n) -> new Row(rs.getString(1), rs.getLong(2), rs.getLong(3), (Long) rs.getObject(4)))
                .optional();
    }
}
