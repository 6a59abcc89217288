package example.branches;

import static example.branches.SelfCheck.causes;
import static example.branches.SelfCheck.require;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.StaleTokenException;
import jakarta.persistence.EntityManagerFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.hibernate.SessionFactory;
import org.hibernate.stat.Statistics;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/** What the running application must show: every kind of JPA write stamped, a stale one refused. */
@Component
class BranchChecks {

    private static final int OPENED = 25;

    private final BranchService service;
    private final AccountRepository accounts;
    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final Statistics statistics;

    BranchChecks(BranchService service, AccountRepository accounts, JdbcTemplate jdbc,
                 TransactionTemplate transactions, EntityManagerFactory entityManagerFactory) {
        this.service = service;
        this.accounts = accounts;
        this.jdbc = jdbc;
        this.transactions = transactions;
        this.statistics = entityManagerFactory.unwrap(SessionFactory.class).getStatistics();
    }

    void run() {
        // a new branch each run: a resource whose tokens nobody else has seen
        String branch = "b-" + UUID.randomUUID();
        List<Account> opened = new ArrayList<>();
        for (int i = 0; i < OPENED; i++) {
            opened.add(new Account(branch + "-" + i, branch, "owner " + i, 100));
        }
        statistics.clear();
        long t1 = service.open(branch, opened);
        long prepared = statistics.getPrepareStatementCount();
        require(prepared < OPENED, OPENED + " inserts took " + prepared + " statements: not batched");
        requireAllStamped(branch, t1, "the batched inserts");

        String first = branch + "-0";
        long t2 = service.deposit(branch, first, 5);
        require(token(first) == t2, "the dirty-checked update left token " + token(first) + ", not " + t2);

        Account detached = accounts.findById(first).orElseThrow();
        detached.setOwner("renamed");
        long t3 = service.save(branch, detached);
        require(token(first) == t3, "the merge left token " + token(first) + ", not " + t3);

        long t4 = service.payInterest(branch, 1);
        requireAllStamped(branch, t4, "the JPQL update");
        require(t1 < t2 && t2 < t3 && t3 < t4, "tokens do not grow: " + List.of(t1, t2, t3, t4));
        Account now = accounts.findById(first).orElseThrow();
        require(now.getBalance() == 106 && "renamed".equals(now.getOwner()) && now.getVersion() == 3,
                "the account reads " + now.getBalance() + "/" + now.getOwner() + "/v" + now.getVersion());

        // the first lease's token, presented after the newer ones: the versioned update is refused at the row
        Lease stale = Lease.presented(Fence.of(ResourceName.of("branch:" + branch), FencingToken.of(t1)), "self-check");
        try (LeaseContext.Scope scope = LeaseContext.bind(stale)) {
            transactions.executeWithoutResult(status -> {
                accounts.findById(first).orElseThrow().deposit(1000);
                accounts.flush();
            });
            throw new IllegalStateException("a write with the older token " + t1 + " was accepted");
        } catch (RuntimeException e) {
            require(causes(e).stream().anyMatch(StaleTokenException.class::isInstance),
                    "the stale write failed, but not with StaleTokenException: " + e);
        }
        require(accounts.findById(first).orElseThrow().getBalance() == 106, "the refused write changed the balance");
        System.out.println("jpa: " + OPENED + " inserts through " + prepared + " prepared statement(s) at token " + t1
                + ", update " + t2 + ", merge " + t3 + ", JPQL update " + t4 + "; token " + t1 + " refused afterwards");
    }

    private void requireAllStamped(String branch, long token, String what) {
        Integer stamped = jdbc.queryForObject("SELECT count(*) FROM accounts WHERE branch = ? AND current_token = ?",
                Integer.class, branch, token);
        require(stamped != null && stamped == OPENED, what + " stamped " + stamped + " of " + OPENED
                + " rows with token " + token);
    }

    private long token(String id) {
        return jdbc.queryForObject("SELECT current_token FROM accounts WHERE id = ?", Long.class, id);
    }
}
