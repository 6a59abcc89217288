package example.wallets;

import static example.wallets.SelfCheck.causes;
import static example.wallets.SelfCheck.require;

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
class WalletChecks {

    private final WalletDao wallets;
    private final AuditController audit;
    private final JdbcTemplate jdbc;

    WalletChecks(WalletDao wallets, AuditController audit, JdbcTemplate jdbc) {
        this.wallets = wallets;
        this.audit = audit;
        this.jdbc = jdbc;
    }

    void run() {
        require(wallets.balance("house") == 1000, "data.sql's row is not there");
        // the guard's objects in this application's own database (not borrowed from another on the server)
        Integer guardObjects = jdbc.queryForObject("SELECT (SELECT COUNT(*) FROM information_schema.ROUTINES"
                + " WHERE ROUTINE_SCHEMA = DATABASE() AND ROUTINE_NAME = 'fenceguard_stale')"
                + " + (SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()"
                + " AND TABLE_NAME = 'fenceguard_gate')", Integer.class);
        require(guardObjects != null && guardObjects == 2, "fenceguard_stale and fenceguard_gate are not in the"
                + " application's database: nothing created them without Flyway");
        // the guard's Flyway run has a history of its own; Boot's Flyway (not on this classpath) ran nothing
        Integer histories = jdbc.queryForObject("SELECT (SELECT COUNT(*) FROM information_schema.TABLES"
                + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'fenceguard_schema_history') * 10"
                + " + (SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()"
                + " AND TABLE_NAME = 'flyway_schema_history')", Integer.class);
        require(histories != null && histories == 10, "expected the guard's fenceguard_schema_history and no"
                + " flyway_schema_history (10), found " + histories);
        // a new wallet each run: a resource whose tokens nobody else has seen
        String id = "a-" + UUID.randomUUID();
        long opened = wallets.open(id, 100);
        require(wallets.storedToken(id) == opened, "the new row carries token " + wallets.storedToken(id)
                + ", not the lease's " + opened);

        long deposited = wallets.deposit(id, 5);
        require(deposited > opened, "the second lease's token " + deposited + " is not above the first's " + opened);
        require(wallets.storedToken(id) == deposited, "the updated row carries token " + wallets.storedToken(id)
                + ", not the lease's " + deposited);
        String header = audit.lastToken(id);
        require(header != null && header.contains("wallet:" + id) && header.contains(Long.toString(deposited)),
                "the audit call carried Fencing-Token " + header + ", not wallet:" + id + " at " + deposited);

        // the first lease's token, presented after the second's write: refused at the row
        Lease stale = Lease.presented(Fence.of(ResourceName.of("wallet:" + id), FencingToken.of(opened)), "self-check");
        try (LeaseContext.Scope scope = LeaseContext.bind(stale)) {
            jdbc.update("UPDATE wallets SET balance = balance + ? WHERE id = ?", 1000, id);
            throw new IllegalStateException("a write with the older token " + opened + " was accepted");
        } catch (RuntimeException e) {
            require(causes(e).stream().anyMatch(StaleTokenException.class::isInstance),
                    "the stale write failed, but not with StaleTokenException: " + e);
        }
        require(wallets.balance(id) == 105, "balance " + wallets.balance(id) + " after the refused write, not 105");
        System.out.println("mariadb-no-flyway: rows stamped with tokens " + opened + " and " + deposited
                + ", header '" + header + "' downstream, token " + opened + " refused afterwards");
    }
}
