package io.fenceguard.spring.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.core.spi.LeaseRequest;
import io.fenceguard.spring.WithheldRenewals;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/** The lease meters bound by hand to a registry, as an application without Boot does. */
class FenceguardLeaseMetricsTest {

    @Test
    void countsAcquiredAndRefusedLeasesAndShowsTheHeldOnes() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (LeaseManager leases = LeaseManager.of(InMemoryLeaseProvider.create())) {
            new FenceguardLeaseMetrics(leases).bindTo(registry);
            try (Lease held = leases.acquire("account:1", Duration.ofSeconds(1))) {
                assertThat(registry.get("fenceguard.lease.held").gauge().value()).isEqualTo(1.0);
                // another thread is another holder: it gives up after its wait
                CompletableFuture<Lease> other = CompletableFuture.supplyAsync(
                        () -> leases.acquire("account:1", Duration.ofMillis(50)));
                assertThatThrownBy(other::join).hasCauseInstanceOf(LeaseTimeoutException.class);
            }
            assertThat(registry.get("fenceguard.lease.held").gauge().value()).isEqualTo(0.0);
            assertThat(registry.get("fenceguard.lease.acquire").tag("outcome", "acquired").timer().count()).isEqualTo(1);
            assertThat(registry.get("fenceguard.lease.acquire").tag("outcome", "not_obtained").timer().count())
                    .isEqualTo(1);
        }
    }

    /** A store that throws is told apart from a wait that ran out: an operator alerts on the first only. */
    @Test
    void timesAcquisitionsTheStoreFailedAsFailed() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        LeaseProvider unreachable = new LeaseProvider() {
            @Override
            public Grant acquire(LeaseRequest request, Duration wait) {
                throw new IllegalStateException("the store cannot be reached");
            }

            @Override
            public CompletionStage<Boolean> renew(LeaseRequest request, Grant grant) {
                return CompletableFuture.completedFuture(false);
            }

            @Override
            public boolean release(LeaseRequest request, Grant grant) {
                return false;
            }
        };
        try (LeaseManager leases = LeaseManager.of(unreachable)) {
            new FenceguardLeaseMetrics(leases).bindTo(registry);
            assertThatThrownBy(() -> leases.acquire("account:4", Duration.ofSeconds(1)))
                    .hasStackTraceContaining("the store cannot be reached");
            assertThat(registry.get("fenceguard.lease.acquire").tag("outcome", "failed").timer().count()).isEqualTo(1);
            assertThat(registry.get("fenceguard.lease.acquire").tag("outcome", "not_obtained").timer().count())
                    .isZero();
        }
    }

    @Test
    void heldOnlyLeavesAcquireToTheObservations() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (LeaseManager leases = LeaseManager.of(InMemoryLeaseProvider.create())) {
            new FenceguardLeaseMetrics(leases, true).bindTo(registry);
            leases.acquire("account:2", Duration.ofSeconds(1)).close();
            assertThat(registry.find("fenceguard.lease.acquire").timer()).isNull();
            assertThat(registry.find("fenceguard.lease.held").gauge()).isNotNull();
        }
    }

    @Test
    void countsLeasesAtRiskOncePerEpisodeBeforeTheyAreLostAndReleaseRequests() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        WithheldRenewals store = new WithheldRenewals();
        try (LeaseManager leases = LeaseManager.of(store, LeaseConfig.builder().leaseTime(Duration.ofMillis(600))
                .renewInterval(Duration.ofMillis(150)).build())) {
            new FenceguardLeaseMetrics(leases).bindTo(registry);
            Lease lease = leases.acquire("account:3", Duration.ofSeconds(1));
            lease.onReleaseRequested((l, reason) -> { });
            assertThat(leases.requestRelease("account:3", "maintenance")).isTrue();
            store.withhold();
            long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
            while (registry.get("fenceguard.lease.lost").tag("reason", "expired").counter().count() < 1
                    && System.nanoTime() < end) {
                Thread.sleep(10);
            }
            assertThat(registry.get("fenceguard.lease.lost").tag("reason", "expired").counter().count()).isEqualTo(1);
            assertThat(registry.get("fenceguard.lease.at-risk").counter().count()).isEqualTo(1);
            assertThat(registry.get("fenceguard.lease.release-requested").counter().count()).isEqualTo(1);
        }
    }
}
