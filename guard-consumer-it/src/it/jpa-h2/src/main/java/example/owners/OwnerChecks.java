package example.owners;

import static example.owners.SelfCheck.causes;
import static example.owners.SelfCheck.require;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.StaleTokenException;
import java.util.List;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/** What the started application must show: its writes stamped with growing tokens, a stale one refused. */
@Component
class OwnerChecks {

    private final OwnerService service;
    private final OwnerRepository owners;
    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;

    OwnerChecks(OwnerService service, OwnerRepository owners, JdbcTemplate jdbc, TransactionTemplate transactions) {
        this.service = service;
        this.owners = owners;
        this.jdbc = jdbc;
        this.transactions = transactions;
    }

    void run() {
        require(owners.count() >= 2, "the seed rows of data.sql are missing");
        // a seeded owner: the same resource at every start, its lock store's counter outliving the database
        long t1 = service.visit("george");
        require(token("george") == t1, "the visit left token " + token("george") + ", not " + t1);
        long t2 = service.visit("george");
        require(t2 > t1 && token("george") == t2, "tokens do not grow: " + List.of(t1, t2));

        String id = "o-" + UUID.randomUUID();
        long t3 = service.register(new Owner(id, "Jean Coleman"));
        require(token(id) == t3, "the insert left token " + token(id) + ", not " + t3);

        // the first visit's token, presented after the newer one: the versioned update is refused at the row
        Lease stale = Lease.presented(Fence.of(ResourceName.of("owner:george"), FencingToken.of(t1)), "self-check");
        try (LeaseContext.Scope scope = LeaseContext.bind(stale)) {
            transactions.executeWithoutResult(status -> {
                owners.findById("george").orElseThrow().visit();
                owners.flush();
            });
            throw new IllegalStateException("a write with the older token " + t1 + " was accepted");
        } catch (RuntimeException e) {
            require(causes(e).stream().anyMatch(StaleTokenException.class::isInstance),
                    "the stale write failed, but not with StaleTokenException: " + e);
        }
        require(owners.findById("george").orElseThrow().getVisits() == 2, "the refused write changed the row");
        System.out.println("jpa-h2: started; visits at tokens " + t1 + " and " + t2 + ", insert at " + t3
                + "; token " + t1 + " refused afterwards");
    }

    private long token(String id) {
        return jdbc.queryForObject("SELECT current_token FROM owners WHERE id = ?", Long.class, id);
    }
}
