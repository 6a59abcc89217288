package io.fenceguard.spring.boot.autoconfigure.core;

import io.fenceguard.core.spi.LeaseProvider;
import org.springframework.boot.health.contributor.Health;

/**
 * A lease store's own state in the {@code fenceguard} health, for example the Redis circuit breaker.
 * Beans of this type are asked in turn; each looks only at the providers it knows.
 */
@FunctionalInterface
public interface LeaseStoreHealth {

    /** Adds details to {@code builder}, and sets it down when the store cannot be used now. */
    void contribute(LeaseProvider provider, Health.Builder builder);
}
