package io.fenceguard.spring.boot.autoconfigure.redis;

import io.fenceguard.spring.boot.autoconfigure.core.LeaseStoreHealth;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.redis.RedisLeaseProvider;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.springframework.boot.health.contributor.Health;

/** Adds the Redis circuit breaker's state to the {@code fenceguard} health; down while it is open. */
public class RedisLeaseStoreHealth implements LeaseStoreHealth {

    @Override
    public void contribute(LeaseProvider provider, Health.Builder builder) {
        if (!(provider instanceof RedisLeaseProvider redis)) {
            return;
        }
        CircuitBreaker breaker = redis.circuitBreaker();
        CircuitBreaker.State state = breaker.getState();
        builder.withDetail("circuitBreaker", state.name()).withDetail("circuitBreakerName", breaker.getName());
        if (state == CircuitBreaker.State.OPEN || state == CircuitBreaker.State.FORCED_OPEN) {
            builder.down();
        }
    }
}
