package io.fenceguard.test.support.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.core.spi.LeaseRequest;
import io.fenceguard.test.support.faults.PausableLeaseProvider.RenewalWithheldException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Withheld renewals never reach the store, the paused holder's lease expires, everything else goes on. */
class PausableLeaseProviderTest {

    /** Renewed every 150 ms: a lease not paused survives renewals late by over a second (a loaded parallel build). */
    private static final Duration LEASE = Duration.ofMillis(1500);

    private final CountingProvider store = new CountingProvider(InMemoryLeaseProvider.create());
    private final PausableLeaseProvider provider = PausableLeaseProvider.wrap(store);
    private final LeaseConfig config = LeaseConfig.builder().leaseTime(LEASE).renewInterval(Duration.ofMillis(150)).build();

    @Test
    void aPausedHolderLosesItsLeaseWhileOtherResourcesAreStillRenewed() throws Exception {
        try (LeaseManager holder = LeaseManager.of(provider, config);
             LeaseManager other = LeaseManager.of(provider, config)) {
            Lease paused = holder.acquire(fresh("paused"), Duration.ZERO);
            Lease running = holder.acquire(fresh("running"), Duration.ZERO);
            List<LeaseLossReason> told = new CopyOnWriteArrayList<>();
            paused.onLost((lease, reason) -> told.add(reason));
            Thread.sleep(LEASE.multipliedBy(2).toMillis());   // renewed past its lease time before the pause
            assertThat(paused.isValid()).isTrue();
            assertThat(store.renewals.get()).isPositive();

            provider.pauseRenewals(paused.resource(), Duration.ofSeconds(30));
            assertThat(provider.isPaused(paused.resource())).isTrue();
            assertThat(provider.isPaused(running.resource())).isFalse();
            // The store lets the lock run out, which one renewal reaching it would have prevented.
            try (Lease next = other.acquire(paused.resource(), Duration.ofSeconds(5))) {
                assertThat(next.token()).isGreaterThan(paused.token());
                assertThat(paused.isValid()).isFalse();
                assertThat(paused.lossReason()).contains(LeaseLossReason.EXPIRED);
            }
            assertThat(provider.withheldRenewals()).isPositive();
            awaitTold(told);
            assertThat(told).containsExactly(LeaseLossReason.EXPIRED);

            assertThat(running.isValid()).as("a lease on a resource that is not paused").isTrue();
            assertThat(other.tryAcquire(running.resource())).isEmpty();
            paused.close();
            running.close();
        }
    }

    @Test
    void aWithheldRenewalFailsWithoutReachingTheStoreAndRenewalsResumeAfterThePause() throws Exception {
        LeaseRequest request = new LeaseRequest(fresh("direct"), "holder", Duration.ofSeconds(10));
        Grant grant = provider.acquire(request, Duration.ZERO);
        provider.pauseRenewals(request.resource(), Duration.ofMillis(300));

        CompletionStage<Boolean> withheld = provider.renew(request, grant);
        assertThatThrownBy(() -> withheld.toCompletableFuture().join())
                .isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(RenewalWithheldException.class)
                .hasMessageContaining(request.resource().value());
        assertThat(store.renewals).hasValue(0);
        assertThat(provider.withheldRenewals()).isEqualTo(1);

        Thread.sleep(400);
        assertThat(provider.isPaused(request.resource())).isFalse();
        assertThat(provider.renew(request, grant).toCompletableFuture().join()).isTrue();
        assertThat(store.renewals).hasValue(1);
        assertThat(provider.withheldRenewals()).isEqualTo(1);
        assertThat(provider.release(request, grant)).isTrue();
    }

    @Test
    void pausingAllWithholdsEveryResourceUntilResumed() {
        LeaseRequest a = new LeaseRequest(fresh("all-a"), "holder-a", Duration.ofSeconds(10));
        LeaseRequest b = new LeaseRequest(fresh("all-b"), "holder-b", Duration.ofSeconds(10));
        Grant grantA = provider.acquire(a, Duration.ZERO);
        Grant grantB = provider.acquire(b, Duration.ZERO);
        provider.pauseAllRenewals(Duration.ofSeconds(30));
        assertThat(provider.isPaused(a.resource())).isTrue();
        assertThat(provider.isPaused(fresh("never-acquired"))).isTrue();
        assertThat(provider.renew(a, grantA).toCompletableFuture()).isCompletedExceptionally();
        assertThat(provider.renew(b, grantB).toCompletableFuture()).isCompletedExceptionally();
        assertThat(store.renewals).hasValue(0);

        provider.resumeRenewals();
        assertThat(provider.renew(a, grantA).toCompletableFuture().join()).isTrue();
        assertThat(provider.renew(b, grantB).toCompletableFuture().join()).isTrue();
        assertThat(store.renewals).hasValue(2);
        assertThat(provider.withheldRenewals()).isEqualTo(2);
    }

    @Test
    void leasesTakenAfterAPauseOfAllAreRenewedAgain() throws Exception {
        try (LeaseManager manager = LeaseManager.of(provider, config)) {
            Lease first = manager.acquire(fresh("before"), Duration.ZERO);
            provider.pauseAllRenewals(LEASE.multipliedBy(2));
            Thread.sleep(LEASE.multipliedBy(2).toMillis() + 100);
            assertThat(first.isValid()).isFalse();
            assertThat(first.lossReason()).contains(LeaseLossReason.EXPIRED);
            first.close();

            try (Lease after = manager.acquire(fresh("after"), Duration.ZERO)) {
                Thread.sleep(LEASE.multipliedBy(2).toMillis());
                assertThat(after.isValid()).as("renewed once the pause is over").isTrue();
            }
        }
    }

    @Test
    void aShorterPauseDoesNotCutALongerOneShortAndBadPausesAreRefused() throws Exception {
        ResourceName resource = fresh("overlap");
        provider.pauseRenewals(resource, Duration.ofSeconds(30));
        provider.pauseRenewals(resource, Duration.ofMillis(1));
        provider.pauseAllRenewals(Duration.ofSeconds(30));
        provider.pauseAllRenewals(Duration.ofMillis(1));
        Thread.sleep(50);
        assertThat(provider.isPaused(resource)).isTrue();
        assertThat(provider.isPaused(fresh("other"))).as("the pause of all").isTrue();

        assertThatThrownBy(() -> provider.pauseRenewals(resource, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> provider.pauseAllRenewals(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> provider.pauseRenewals(null, Duration.ofSeconds(1))).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> PausableLeaseProvider.wrap(null)).isInstanceOf(NullPointerException.class);
        assertThat(provider.describe()).isEqualTo("pausable in-memory");
    }

    private static ResourceName fresh(String what) {
        return ResourceName.of("pause:" + what + ":" + UUID.randomUUID());
    }

    private static void awaitTold(List<LeaseLossReason> told) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (told.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }

    /** The in-memory store, counting the renewals that reach it. */
    private static final class CountingProvider implements LeaseProvider {
        private final LeaseProvider store;
        private final AtomicInteger renewals = new AtomicInteger();

        CountingProvider(LeaseProvider store) {
            this.store = store;
        }

        @Override
        public Grant acquire(LeaseRequest request, Duration wait) {
            return store.acquire(request, wait);
        }

        @Override
        public CompletionStage<Boolean> renew(LeaseRequest request, Grant grant) {
            renewals.incrementAndGet();
            return store.renew(request, grant);
        }

        @Override
        public boolean release(LeaseRequest request, Grant grant) {
            return store.release(request, grant);
        }

        @Override
        public String describe() {
            return store.describe();
        }
    }
}
