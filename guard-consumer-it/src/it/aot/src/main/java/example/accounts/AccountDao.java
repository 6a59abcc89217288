package example.accounts;

import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.annotation.Fenced;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;
import org.springframework.web.client.RestClient;

/** Writes under a lease on the account, as users write them; each returns the token it wrote under. */
@Repository
public class AccountDao {

    private final JdbcTemplate jdbc;
    private final RestClient audit;
    /** The resource of the last lease a @Fenced method ran under, as its SpEL expression named it. */
    private volatile String lastResource = "";

    public AccountDao(JdbcTemplate jdbc, RestClient auditClient) {
        this.jdbc = jdbc;
        this.audit = auditClient;
    }

    @Fenced("'account:' + #id")
    public long open(String id, long balance) {
        jdbc.update("INSERT INTO accounts (id, balance) VALUES (?, ?)", id, balance);
        lastResource = LeaseContext.requireValid().resource().value();
        return LeaseContext.requireValid().token().value();
    }

    /** Adds to the balance, then tells the audit endpoint: both carry the lease's token. */
    @Fenced("'account:' + #id")
    public long deposit(String id, long amount) {
        int rows = jdbc.update("UPDATE accounts SET balance = balance + ? WHERE id = ?", amount, id);
        if (rows != 1) {
            throw new IllegalArgumentException("no account " + id);
        }
        audit.post().uri("/audit/{id}", id).body("deposit " + amount).retrieve().toBodilessEntity();
        return LeaseContext.requireValid().token().value();
    }

    public String lastResource() {
        return lastResource;
    }

    public long balance(String id) {
        return jdbc.queryForObject("SELECT balance FROM accounts WHERE id = ?", Long.class, id);
    }

    public long storedToken(String id) {
        return jdbc.queryForObject("SELECT current_token FROM accounts WHERE id = ?", Long.class, id);
    }
}
