package example.accounts;

import static example.accounts.SelfCheck.causes;
import static example.accounts.SelfCheck.require;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.FencedConnection;
import io.fenceguard.jdbc.StaleTokenException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.springframework.aop.support.AopUtils;
import org.springframework.aot.AotDetector;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;

/**
 * What the application must show when its context comes from the code generated at build time: the @Fenced proxy,
 * its SpEL over parameters, the bound properties and the JDBC proxy at work; stamped rows, the token downstream, a
 * stale token refused at the row and at the endpoint.
 */
@Component
class AccountChecks {

    private final AccountDao accounts;
    private final AuditController audit;
    private final JdbcTemplate jdbc;
    private final DataSource dataSource;
    private final LeaseManager leases;
    private final RestClient auditClient;

    AccountChecks(AccountDao accounts, AuditController audit, JdbcTemplate jdbc, DataSource dataSource,
                  LeaseManager leases, RestClient auditClient) {
        this.accounts = accounts;
        this.audit = audit;
        this.jdbc = jdbc;
        this.dataSource = dataSource;
        this.leases = leases;
        this.auditClient = auditClient;
    }

    void run() {
        require(AotDetector.useGeneratedArtifacts(), "not started from the generated code: run with -Dspring.aot.enabled=true");
        require(AopUtils.isAopProxy(accounts), "the @Fenced DAO is not proxied: " + accounts.getClass());
        require(leases.config().leaseTime().equals(Duration.ofSeconds(7)),
                "fenceguard.lease.lease-time=7s bound as " + leases.config().leaseTime());
        require(fencedConnections(), "the DataSource bean hands out unfenced connections");

        // a new account each run: a resource whose tokens nobody else has seen
        String id = "a-" + UUID.randomUUID();
        long opened = accounts.open(id, 100);
        require(accounts.storedToken(id) == opened, "the new row carries token " + accounts.storedToken(id)
                + ", not the lease's " + opened);
        require(accounts.lastResource().equals("account:" + id), "@Fenced(\"'account:' + #id\") took a lease on '"
                + accounts.lastResource() + "', not account:" + id);

        long deposited = accounts.deposit(id, 5);
        require(deposited > opened, "the second lease's token " + deposited + " is not above the first's " + opened);
        require(accounts.storedToken(id) == deposited, "the updated row carries token " + accounts.storedToken(id)
                + ", not the lease's " + deposited);
        String header = audit.lastToken(id);
        require(header != null && header.contains("account:" + id) && header.contains(Long.toString(deposited)),
                "the audit call carried Fencing-Token " + header + ", not account:" + id + " at " + deposited);

        // the first lease's token, presented after the second's write: refused at the row and at the endpoint
        Lease stale = Lease.presented(Fence.of(ResourceName.of("account:" + id), FencingToken.of(opened)), "self-check");
        try (LeaseContext.Scope scope = LeaseContext.bind(stale)) {
            jdbc.update("UPDATE accounts SET balance = balance + ? WHERE id = ?", 1000, id);
            throw new IllegalStateException("a write with the older token " + opened + " was accepted");
        } catch (RuntimeException e) {
            require(causes(e).stream().anyMatch(StaleTokenException.class::isInstance),
                    "the stale write failed, but not with StaleTokenException: " + e);
        }
        require(accounts.balance(id) == 105, "balance " + accounts.balance(id) + " after the refused write, not 105");
        try (LeaseContext.Scope scope = LeaseContext.bind(stale)) {
            auditClient.post().uri("/audit/{id}", id).body("stale").retrieve().toBodilessEntity();
            throw new IllegalStateException("the audit endpoint admitted the older token " + opened);
        } catch (HttpClientErrorException e) {
            require(e.getStatusCode().value() == 409, "the audit endpoint answered the older token with "
                    + e.getStatusCode() + ", not 409: " + e.getResponseBodyAsString());
        }
        System.out.println("aot: generated context, rows stamped with tokens " + opened + " and " + deposited
                + ", header '" + header + "' downstream, token " + opened + " refused at the row and by the endpoint (409)");
    }

    private boolean fencedConnections() {
        try (Connection connection = dataSource.getConnection()) {
            return connection instanceof FencedConnection;
        } catch (SQLException e) {
            throw new IllegalStateException("no connection from the DataSource bean", e);
        }
    }
}
