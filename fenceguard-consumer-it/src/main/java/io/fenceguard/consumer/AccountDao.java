package io.fenceguard.consumer;

import io.fenceguard.core.annotation.Fenced;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;
import org.springframework.web.client.RestClient;

/** A DAO as users write them: one annotation puts the writes under a lease whose token fences them. */
@Repository
public class AccountDao {

    private final JdbcTemplate jdbc;
    private final RestClient audit;

    public AccountDao(JdbcTemplate jdbc, RestClient auditClient) {
        this.jdbc = jdbc;
        this.audit = auditClient;
    }

    /** Adds to the balance, then tells the audit service; both carry the lease's token. */
    @Fenced("'account:' + #id")
    public void deposit(String id, long amount) {
        int rows = jdbc.update("UPDATE consumer_accounts SET balance = balance + ? WHERE id = ?", amount, id);
        if (rows != 1) {
            throw new IllegalArgumentException("no account " + id);
        }
        audit.post().uri("/audit/{id}", id).body("deposit " + amount).retrieve().toBodilessEntity();
    }

    public long balance(String id) {
        Long balance = jdbc.queryForObject("SELECT balance FROM consumer_accounts WHERE id = ?", Long.class, id);
        return balance == null ? 0 : balance;
    }
}
