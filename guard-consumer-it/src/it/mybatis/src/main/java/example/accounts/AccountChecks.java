package example.accounts;

import static example.accounts.SelfCheck.require;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.FencingRefusedException;
import io.fenceguard.spring.dao.FencingRefusedUsageException;
import io.fenceguard.spring.dao.StaleTokenFailureException;
import java.util.UUID;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.stereotype.Component;

/**
 * What the running application must show: stamped rows, a stale write refused as a ConcurrencyFailureException
 * (fenceguard's StaleTokenFailureException), a write without a lease as an InvalidDataAccessApiUsageException.
 */
@Component
class AccountChecks {

    private final AccountDao accounts;

    AccountChecks(AccountDao accounts) {
        this.accounts = accounts;
    }

    void run() {
        // a new account each run: a resource whose tokens nobody else has seen
        String id = "a-" + UUID.randomUUID();
        long opened = accounts.open(id, 100);
        require(accounts.storedToken(id) == opened, "the new row carries token " + accounts.storedToken(id)
                + ", not the lease's " + opened);
        long deposited = accounts.deposit(id, 5);
        require(deposited > opened, "the second lease's token " + deposited + " is not above the first's " + opened);
        require(accounts.storedToken(id) == deposited, "the updated row carries token " + accounts.storedToken(id));

        // the first lease's token, presented after the second's write: refused at the row
        Lease stale = Lease.presented(Fence.of(ResourceName.of("account:" + id), FencingToken.of(opened)), "self-check");
        try (LeaseContext.Scope scope = LeaseContext.bind(stale)) {
            accounts.add(id, 1000);
            throw new IllegalStateException("a write with the older token " + opened + " was accepted");
        } catch (StaleTokenFailureException e) {
            require(e instanceof ConcurrencyFailureException, "not a ConcurrencyFailureException: " + e);
            require(e.fence().orElseThrow().token().value() == opened, "the refusal names " + e.fence());
        }
        try {
            accounts.add(id, 1000);
            throw new IllegalStateException("a write without a lease was accepted");
        } catch (FencingRefusedUsageException e) {
            require(e instanceof InvalidDataAccessApiUsageException, "not an InvalidDataAccessApiUsageException: " + e);
            require(e.reason().orElseThrow() == FencingRefusedException.Reason.NO_LEASE, "refused for " + e.reason());
        }
        require(accounts.balance(id) == 105, "balance " + accounts.balance(id) + " after the refused writes, not 105");
        System.out.println("mybatis: rows stamped with tokens " + opened + " and " + deposited + ", token " + opened
                + " refused afterwards as " + StaleTokenFailureException.class.getSimpleName()
                + ", a write without a lease as " + FencingRefusedUsageException.class.getSimpleName());
    }
}
