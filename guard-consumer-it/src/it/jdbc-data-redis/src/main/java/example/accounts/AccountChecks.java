package example.accounts;

import static example.accounts.SelfCheck.causes;
import static example.accounts.SelfCheck.require;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.StaleTokenException;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/** What the running application must show: stamped rows, the token downstream, a stale write refused. */
@Component
class AccountChecks {

    private final AccountDao accounts;
    private final AuditController audit;
    private final JdbcTemplate jdbc;

    AccountChecks(AccountDao accounts, AuditController audit, JdbcTemplate jdbc) {
        this.accounts = accounts;
        this.audit = audit;
        this.jdbc = jdbc;
    }

    void run() {
        // a new account each run: a resource whose tokens nobody else has seen
        String id = "a-" + UUID.randomUUID();
        long opened = accounts.open(id, 100);
        require(accounts.storedToken(id) == opened, "the new row carries token " + accounts.storedToken(id)
                + ", not the lease's " + opened);

        long deposited = accounts.deposit(id, 5);
        require(deposited > opened, "the second lease's token " + deposited + " is not above the first's " + opened);
        require(accounts.storedToken(id) == deposited, "the updated row carries token " + accounts.storedToken(id)
                + ", not the lease's " + deposited);
        String header = audit.lastToken(id);
        require(header != null && header.contains("account:" + id) && header.contains(Long.toString(deposited)),
                "the audit call carried Fencing-Token " + header + ", not account:" + id + " at " + deposited);

        // the first lease's token, presented after the second's write: refused at the row
        Lease stale = Lease.presented(Fence.of(ResourceName.of("account:" + id), FencingToken.of(opened)), "self-check");
        try (LeaseContext.Scope scope = LeaseContext.bind(stale)) {
            jdbc.update("UPDATE accounts SET balance = balance + ? WHERE id = ?", 1000, id);
            throw new IllegalStateException("a write with the older token " + opened + " was accepted");
        } catch (RuntimeException e) {
            require(causes(e).stream().anyMatch(StaleTokenException.class::isInstance),
                    "the stale write failed, but not with StaleTokenException: " + e);
        }
        require(accounts.balance(id) == 105, "balance " + accounts.balance(id) + " after the refused write, not 105");
        System.out.println("jdbc-data-redis: rows stamped with tokens " + opened + " and " + deposited
                + ", header '" + header + "' downstream, token " + opened + " refused afterwards");
    }
}
