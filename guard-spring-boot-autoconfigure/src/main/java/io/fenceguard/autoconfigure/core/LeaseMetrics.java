package io.fenceguard.autoconfigure.core;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.LeaseObserver;
import io.fenceguard.core.ResourceName;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/**
 * Lease metrics: {@code guard.lease.acquire} (timer, {@code outcome=acquired|not_obtained}) and
 * {@code guard.lease.lost} (counter, {@code reason}). Resource names are left out of tags: there may
 * be millions.
 */
public class LeaseMetrics implements LeaseObserver {

    private final Timer acquired;
    private final Timer notObtained;
    private final MeterRegistry registry;

    public LeaseMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.acquired = Timer.builder("guard.lease.acquire").tag("outcome", "acquired")
                .description("Time to obtain a lease, waiting included").register(registry);
        this.notObtained = Timer.builder("guard.lease.acquire").tag("outcome", "not_obtained")
                .description("Time to obtain a lease, waiting included").register(registry);
        for (LeaseLossReason reason : LeaseLossReason.values()) {
            registry.counter("guard.lease.lost", "reason", reason.name().toLowerCase());
        }
    }

    @Override
    public void acquired(Lease lease, Duration waited) {
        acquired.record(waited);
    }

    @Override
    public void notObtained(ResourceName resource, Duration waited) {
        notObtained.record(waited);
    }

    @Override
    public void lost(Lease lease, LeaseLossReason reason) {
        registry.counter("guard.lease.lost", "reason", reason.name().toLowerCase()).increment();
    }
}
