package io.fenceguard.example.ledger;

import io.fenceguard.core.LeaseContext;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Audit calls waiting to be sent ({@code audit_outbox}). A row is written in the deposit's transaction
 * and sent after it committed, in balance order (each deposit raises the balance), with the row's id as
 * Idempotency-Key: the audit endpoint answers a resend from its first response, so a row sent and
 * not yet deleted when the process died is not recorded twice. A sent row is deleted: the table holds the calls
 * still to send, not the history (that is the audit trail's).
 */
@Repository
public class AuditOutbox {

    private static final Logger log = LoggerFactory.getLogger(AuditOutbox.class);

    private final JdbcClient jdbc;
    private final AuditClient audit;

    public AuditOutbox(DataSource dataSource, AuditClient audit) {
        this.jdbc = JdbcClient.create(dataSource);
        this.audit = audit;
    }

    private record Pending(String id, long amount, long balance) {
    }

    /** Adds the audit call of a deposit, in the caller's transaction. */
    public void add(String accountId, long amount, long balance) {
        jdbc.sql("INSERT INTO audit_outbox (id, account_id, amount, balance) VALUES (?, ?, ?, ?)")
                .params(UUID.randomUUID().toString(), accountId, amount, balance).update();
    }

    /** Accounts with calls still to send. */
    public List<String> accountsWithPending() {
        return jdbc.sql("SELECT DISTINCT account_id FROM audit_outbox WHERE sent = 0").query(String.class).list();
    }

    /** Calls still to send, over all accounts. */
    public long pending() {
        return jdbc.sql("SELECT COUNT(*) FROM audit_outbox WHERE sent = 0").query(Long.class).single();
    }

    /**
     * Sends the account's pending calls in order under the caller's lease on the account; answers
     * whether none is left. Stops at the first failure (the rest wait, to keep the order).
     */
    public boolean drain(String accountId) {
        LeaseContext.requireValid();
        List<Pending> pending = jdbc.sql("SELECT id, amount, balance FROM audit_outbox WHERE account_id = ? AND sent = 0 "
                        + "ORDER BY balance")
                .param(accountId).query((rs, n) -> new Pending(rs.getString(1), rs.getLong(2), rs.getLong(3))).list();
        for (Pending call : pending) {
            try {
                audit.record(accountId, call.amount(), call.balance(), call.id());
            } catch (RuntimeException e) {
                log.warn("audit call {} for account {} not sent yet ({}); the relay retries it", call.id(), accountId,
                        e.toString());
                return false;
            }
            // Sent: the row has done its work. A resend of it (this process died before this line) is answered
            // from the audit endpoint's idempotency record, so nothing needs the row any more.
            jdbc.sql("DELETE FROM audit_outbox WHERE id = ?").param(call.id()).update();
        }
        return true;
    }

    /** Rows kept, sent or not: only the calls still to send, so the table does not grow with the work done. */
    public long rows() {
        return jdbc.sql("SELECT COUNT(*) FROM audit_outbox").query(Long.class).single();
    }
}
