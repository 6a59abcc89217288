package example.branches;

import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.annotation.Fenced;
import java.util.List;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * The branch's writes, each in a transaction under the lease on its branch (taken before the transaction
 * begins); each returns the token it wrote under.
 */
@Service
public class BranchService {

    private final AccountRepository accounts;

    public BranchService(AccountRepository accounts) {
        this.accounts = accounts;
    }

    /** New entities, persisted in JDBC batches. */
    @Fenced("'branch:' + #branch")
    @Transactional
    public long open(String branch, List<Account> opened) {
        accounts.saveAll(opened);
        accounts.flush();
        return token();
    }

    /** A managed entity changed: Hibernate's dirty check writes it, versioned. */
    @Fenced("'branch:' + #branch")
    @Transactional
    public long deposit(String branch, String id, long amount) {
        accounts.findById(id).orElseThrow().deposit(amount);
        accounts.flush();
        return token();
    }

    /** A detached entity merged back. */
    @Fenced("'branch:' + #branch")
    @Transactional
    public long save(String branch, Account detached) {
        accounts.save(detached);
        accounts.flush();
        return token();
    }

    /** One JPQL bulk update over the branch. */
    @Fenced("'branch:' + #branch")
    @Transactional
    public long payInterest(String branch, long amount) {
        accounts.payInterest(branch, amount);
        return token();
    }

    private static long token() {
        return LeaseContext.requireValid().token().value();
    }
}
