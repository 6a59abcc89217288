package io.fenceguard.test.support.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseObserver;
import io.fenceguard.core.memory.InMemoryLeaseProvider;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A holder is warned that its lease is at risk (renewals withheld, less than half of the lease left) before it is
 * lost: once per episode, again only after a renewal that succeeded ended the episode, never for a healthy lease.
 */
class LeaseAtRiskTest {

    private static final Duration LEASE = Duration.ofMillis(2_000);

    private final PausableLeaseProvider provider = PausableLeaseProvider.wrap(InMemoryLeaseProvider.create());
    private final LeaseManager manager = LeaseManager.of(provider,
            LeaseConfig.builder().leaseTime(LEASE).renewInterval(Duration.ofMillis(400)).build());
    private final List<String> events = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        manager.close();
    }

    @Test
    void atRiskIsToldOnceBeforeTheLeaseIsLostAndNeverAfter() throws Exception {
        List<Duration> observed = new CopyOnWriteArrayList<>();
        manager.addObserver(new LeaseObserver() {
            @Override
            public void atRisk(Lease lease, Duration remaining) {
                observed.add(remaining);
            }
        });
        Lease lease = manager.acquire(fresh(), Duration.ZERO);
        List<Duration> remainingWhenTold = new CopyOnWriteArrayList<>();
        lease.onAtRisk((l, remaining) -> {
            events.add("at-risk");
            remainingWhenTold.add(remaining);
        });
        lease.onLost((l, reason) -> events.add("lost"));

        provider.pauseRenewals(lease.resource(), Duration.ofSeconds(30));
        await(() -> events.contains("lost"), Duration.ofSeconds(5));
        Thread.sleep(300);   // room for a late (wrong) warning
        lease.onAtRisk((l, remaining) -> events.add("at-risk after loss"));
        Thread.sleep(100);

        assertThat(provider.withheldRenewals()).isPositive();
        assertThat(events).containsExactly("at-risk", "lost");
        assertThat(remainingWhenTold.get(0)).isPositive().isLessThan(LEASE.dividedBy(2));
        assertThat(observed).hasSize(1);
        assertThat(lease.isAtRisk()).isFalse();
    }

    @Test
    void aRenewalThatSucceedsAgainEndsTheEpisodeAndTheNextOneIsToldAgain() throws Exception {
        Lease lease = manager.acquire(fresh(), Duration.ZERO);
        lease.onAtRisk((l, remaining) -> events.add("at-risk"));
        lease.onLost((l, reason) -> events.add("lost"));

        for (int episode = 1; episode <= 2; episode++) {
            // Renewals withheld past half the lease, then let through well before its end.
            provider.pauseRenewals(lease.resource(), LEASE.multipliedBy(65).dividedBy(100));
            int told = episode;
            await(() -> events.size() == told, LEASE);
            assertThat(lease.isAtRisk()).isTrue();
            await(() -> !lease.isAtRisk(), LEASE);
            assertThat(lease.isValid()).isTrue();
            // Renewed again: the lease has more than the at-risk share ahead of it.
            assertThat(lease.remaining()).isGreaterThan(LEASE.dividedBy(2));
        }
        assertThat(events).containsExactly("at-risk", "at-risk");
        lease.close();
    }

    @Test
    void aHealthyLeaseIsNeverAtRisk() throws Exception {
        try (Lease lease = manager.acquire(fresh(), Duration.ZERO)) {
            lease.onAtRisk((l, remaining) -> events.add("at-risk"));
            Thread.sleep(LEASE.multipliedBy(2).toMillis());
            assertThat(lease.isValid()).isTrue();
            assertThat(lease.isAtRisk()).isFalse();
        }
        assertThat(events).isEmpty();
    }

    @Test
    void aThrowingListenerKeepsNoOtherFromBeingToldAndAReleasedLeaseIsNeverAtRisk() throws Exception {
        Lease lease = manager.acquire(fresh(), Duration.ZERO);
        lease.onAtRisk((l, remaining) -> {
            throw new IllegalStateException("a listener that fails");
        });
        lease.onAtRisk((l, remaining) -> events.add("at-risk"));
        provider.pauseRenewals(lease.resource(), Duration.ofSeconds(30));
        await(() -> events.contains("at-risk"), LEASE);
        lease.close();

        Lease released = manager.acquire(fresh(), Duration.ZERO);
        released.onAtRisk((l, remaining) -> events.add("released at-risk"));
        provider.pauseRenewals(released.resource(), Duration.ofSeconds(30));
        Thread.sleep(LEASE.dividedBy(4).toMillis());
        released.close();
        Thread.sleep(LEASE.toMillis());
        assertThat(events).containsExactly("at-risk");
    }

    private static String fresh() {
        return "at-risk:" + UUID.randomUUID();
    }

    private static void await(BooleanSupplier condition, Duration within) throws InterruptedException {
        long end = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("not within " + within);
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
    }
}
