package example.metrics;

import static example.metrics.SelfCheck.causes;
import static example.metrics.SelfCheck.require;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.StaleTokenException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;

/**
 * Everything the dashboard and the alerts show, done once on the running application: leases acquired and one not
 * obtained, a stale write refused at the row, a stale call refused at the fenced endpoint, and a lease lost.
 */
@Component
class AccountChecks {

    private final AccountDao accounts;
    private final AuditController audit;
    private final JdbcTemplate jdbc;
    private final RestClient auditClient;
    private final LeaseManager leases;
    private final StringRedisTemplate redis;
    private final String keyPrefix;

    AccountChecks(AccountDao accounts, AuditController audit, JdbcTemplate jdbc, RestClient auditClient,
                  LeaseManager leases, StringRedisTemplate redis,
                  @Value("${fenceguard.redis.key-prefix}") String keyPrefix) {
        this.accounts = accounts;
        this.audit = audit;
        this.jdbc = jdbc;
        this.auditClient = auditClient;
        this.leases = leases;
        this.redis = redis;
        this.keyPrefix = keyPrefix;
    }

    void run() {
        // a new account each run: a resource whose tokens nobody else has seen
        String id = "a-" + UUID.randomUUID();
        long opened = accounts.open(id, 100);
        long deposited = accounts.deposit(id, 5);
        require(deposited > opened, "the second lease's token " + deposited + " is not above the first's " + opened);
        require(audit.lastToken(id) != null, "the audit endpoint admitted no call for " + id);

        // the first lease's token, presented after the second's writes: refused at the row and at the endpoint
        Lease stale = Lease.presented(Fence.of(ResourceName.of("account:" + id), FencingToken.of(opened)), "self-check");
        try (LeaseContext.Scope scope = LeaseContext.bind(stale)) {
            jdbc.update("UPDATE accounts SET balance = balance + ? WHERE id = ?", 1000, id);
            throw new IllegalStateException("a write with the older token " + opened + " was accepted");
        } catch (RuntimeException e) {
            require(causes(e).stream().anyMatch(StaleTokenException.class::isInstance),
                    "the stale write failed, but not with StaleTokenException: " + e);
        }
        try (LeaseContext.Scope scope = LeaseContext.bind(stale)) {
            auditClient.post().uri("/audit/{id}", id).body("stale").retrieve().toBodilessEntity();
            throw new IllegalStateException("a call with the older token " + opened + " was admitted");
        } catch (HttpClientErrorException.Conflict expected) {
            // 409: the endpoint has seen a newer token for the account
        }
        require(accounts.balance(id) == 105, "balance " + accounts.balance(id) + " after the refused write, not 105");

        notObtained("busy:" + UUID.randomUUID());
        String lost = loseALease("lost:" + UUID.randomUUID());
        System.out.println("metrics: tokens " + opened + " and " + deposited + " written, token " + opened
                + " refused at the row and at the endpoint, one lease not obtained, one lost (" + lost + ")");
    }

    /** Another thread waits 100 ms for a lease held here: counted as not obtained. */
    private void notObtained(String resource) {
        try (Lease held = leases.acquire(resource, Duration.ofSeconds(5))) {
            boolean timedOut = CompletableFuture.supplyAsync(() -> {
                try (Lease other = leases.acquire(resource, Duration.ofMillis(100))) {
                    return false;
                } catch (LeaseTimeoutException expected) {
                    return true;
                }
            }).join();
            require(timedOut, "a second holder obtained " + resource + " while it was held");
        }
    }

    /** Takes the lease's key away in Redis, as a store that lost it would: the next renewal is rejected. */
    private String loseALease(String resource) {
        Lease lease = leases.acquire(resource, Duration.ofSeconds(5));
        require(Boolean.TRUE.equals(redis.delete(keyPrefix + "{" + resource + "}:lock")),
                "no lock key " + keyPrefix + "{" + resource + "}:lock in Redis");
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (lease.isValid() && System.nanoTime() < deadline) {
            sleep(50);
        }
        require(!lease.isValid(), "the lease on " + resource + " is still valid after its key was deleted");
        lease.close();
        return resource;
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
