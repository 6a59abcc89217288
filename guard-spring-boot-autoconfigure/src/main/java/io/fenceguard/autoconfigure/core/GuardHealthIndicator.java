package io.fenceguard.autoconfigure.core;

import io.fenceguard.core.LeaseManager;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/** {@code guard}: down while the Redis circuit breaker is open (leases fail fast then). */
public class GuardHealthIndicator extends AbstractHealthIndicator {

    private final LeaseManager leases;

    public GuardHealthIndicator(LeaseManager leases) {
        this.leases = leases;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        CircuitBreaker.State state = leases.circuitBreaker().getState();
        if (state == CircuitBreaker.State.OPEN || state == CircuitBreaker.State.FORCED_OPEN) {
            builder.down();
        } else {
            builder.up();
        }
        builder.withDetail("circuitBreaker", state.name())
                .withDetail("heldLeases", leases.heldLeases().size())
                .withDetail("clientId", leases.clientId());
    }
}
