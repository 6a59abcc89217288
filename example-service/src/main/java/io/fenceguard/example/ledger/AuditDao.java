package io.fenceguard.example.ledger;

import io.fenceguard.core.LeaseContext;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Audit entries, in the order they were recorded. The sequence number comes from the account's
 * {@code audit_heads} row, a fenced table: bumping it checks the caller's token against the last
 * one recorded and locks the row, so entries are numbered in token order and a stale caller fails.
 */
@Repository
public class AuditDao {

    private final JdbcClient jdbc;
    private final TransactionTemplate transactions;

    public AuditDao(DataSource dataSource, TransactionTemplate transactions) {
        this.jdbc = JdbcClient.create(dataSource);
        this.transactions = transactions;
    }

    public record Entry(long seq, long token, long amount, long balance) {
    }

    /** Records an entry under the token bound by the fencing filter. */
    public Entry record(String accountId, long amount, long balance) {
        long token = LeaseContext.requireValid().token().value();
        return transactions.execute(status -> {
            int bumped = jdbc.sql("UPDATE audit_heads SET last_seq = last_seq + 1 WHERE account_id = ?")
                    .param(accountId).update();
            if (bumped == 0) {
                throw new AccountNotFoundException(accountId);
            }
            long seq = jdbc.sql("SELECT last_seq FROM audit_heads WHERE account_id = ?").param(accountId)
                    .query(Long.class).single();
            jdbc.sql("INSERT INTO audit_entries (account_id, seq, token, amount, balance) VALUES (?, ?, ?, ?, ?)")
                    .params(accountId, seq, token, amount, balance).update();
            return new Entry(seq, token, amount, balance);
        });
    }

    public List<Entry> list(String accountId) {
        return jdbc.sql("SELECT seq, token, amount, balance FROM audit_entries WHERE account_id = ? ORDER BY seq")
                .param(accountId)
                .query((rs, n) -> new Entry(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)))
                .list();
    }
}
