package io.fenceguard.spring.boot.autoconfigure.core;

import io.fenceguard.core.LeaseManager;
import java.util.List;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * {@code fenceguard}: up, with the lease store's {@code describe()}, the client id and the number of
 * leases held; a store may add its own state and set it down ({@link LeaseStoreHealth}, e.g. while the
 * Redis circuit breaker is open and leases fail fast).
 */
public class FenceguardHealthIndicator extends AbstractHealthIndicator {

    private final LeaseManager leases;
    private final List<LeaseStoreHealth> stores;

    public FenceguardHealthIndicator(LeaseManager leases, List<LeaseStoreHealth> stores) {
        super("fenceguard health check failed");
        this.leases = leases;
        this.stores = List.copyOf(stores);
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.up()
                .withDetail("store", leases.provider().describe())
                .withDetail("clientId", leases.clientId())
                .withDetail("heldLeases", leases.heldLeases().size());
        for (LeaseStoreHealth store : stores) {
            store.contribute(leases.provider(), builder);
        }
    }
}
