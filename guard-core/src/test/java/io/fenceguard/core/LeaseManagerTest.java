package io.fenceguard.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.core.spi.LeaseRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The manager's wiring: observers, loss listeners, holder identity. On the in-memory store. */
class LeaseManagerTest {

    private static final LeaseConfig SHORT = LeaseConfig.builder()
            .leaseTime(Duration.ofMillis(600)).renewInterval(Duration.ofMillis(150)).build();

    /** The in-memory store, with switches to make it misbehave the way a remote store can. */
    private static final class FlakyStore implements LeaseProvider {
        final LeaseProvider memory = InMemoryLeaseProvider.create();
        final AtomicBoolean failReleases = new AtomicBoolean();
        final AtomicBoolean failRenewals = new AtomicBoolean();
        final Set<String> forgotten = ConcurrentHashMap.newKeySet();

        @Override
        public Grant acquire(LeaseRequest request, Duration wait) {
            return memory.acquire(request, wait);
        }

        @Override
        public CompletionStage<Boolean> renew(LeaseRequest request, Grant grant) {
            if (forgotten.contains(request.resource().value())) {
                return CompletableFuture.completedFuture(false);
            }
            if (failRenewals.get()) {
                return CompletableFuture.failedFuture(new LeaseUnavailableException("store unreachable",
                        request.resource(), null));
            }
            return memory.renew(request, grant);
        }

        @Override
        public boolean release(LeaseRequest request, Grant grant) {
            if (failReleases.get()) {
                throw new LeaseUnavailableException("store unreachable", request.resource(), null);
            }
            return memory.release(request, grant);
        }
    }

    @Test
    void anObserverThatThrowsNeverCostsTheCallerItsLease() {
        FlakyStore store = new FlakyStore();
        try (LeaseManager manager = LeaseManager.of(store, SHORT); LeaseManager other = LeaseManager.of(store, SHORT)) {
            manager.addObserver(new LeaseObserver() {
                @Override
                public void acquired(Lease lease, Duration waited) {
                    throw new IllegalStateException("observer bug");
                }
            });
            Lease lease = manager.acquire("observer:throws", Duration.ZERO);
            assertThat(lease.isValid()).isTrue();
            assertThat(other.tryAcquire("observer:throws")).isEmpty();
            lease.close();
            assertThat(other.tryAcquire("observer:throws")).as("released, not leaked").isPresent().get()
                    .satisfies(Lease::close);
        }
    }

    @Test
    void observersHearOfRenewalsAndFailedRenewalsOnTheEventExecutorNotTheWatchdog() throws Exception {
        FlakyStore store = new FlakyStore();
        List<Duration> roundTrips = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        Set<String> threads = ConcurrentHashMap.newKeySet();
        CountDownLatch renewed = new CountDownLatch(2);
        CountDownLatch failed = new CountDownLatch(1);
        LeaseConfig config = LeaseConfig.builder().leaseTime(Duration.ofSeconds(5)).renewInterval(Duration.ofMillis(100))
                .build();
        try (LeaseManager manager = LeaseManager.of(store, config)) {
            Lease[] held = new Lease[1];
            manager.addObserver(new LeaseObserver() {
                @Override
                public void renewed(Lease lease, Duration roundTrip) {
                    assertThat(lease).isSameAs(held[0]);
                    roundTrips.add(roundTrip);
                    threads.add(Thread.currentThread().getName());
                    renewed.countDown();
                }

                @Override
                public void renewalFailed(Lease lease, Throwable error) {
                    failures.add(error);
                    threads.add(Thread.currentThread().getName());
                    failed.countDown();
                }
            });
            held[0] = manager.acquire("observer:renewals", Duration.ZERO);
            assertThat(renewed.await(5, TimeUnit.SECONDS)).as("renewals observed").isTrue();
            assertThat(roundTrips).allSatisfy(rt -> assertThat(rt.isNegative()).isFalse());
            store.failRenewals.set(true);
            assertThat(failed.await(5, TimeUnit.SECONDS)).as("a failed renewal observed").isTrue();
            assertThat(failures.get(0)).isInstanceOf(LeaseUnavailableException.class);
            store.failRenewals.set(false);
            held[0].close();
        }
        assertThat(threads).as("never the watchdog's thread").noneMatch(name -> name.endsWith("-watchdog"));
    }

    @Test
    void aThrowingListenerStopsNoOtherListenerAndValidityChecksNeverThrow() throws Exception {
        FlakyStore store = new FlakyStore();
        try (LeaseManager manager = LeaseManager.of(store, SHORT)) {
            Lease lease = manager.acquire("listener:throws", Duration.ZERO);
            CountDownLatch second = new CountDownLatch(1);
            lease.onLost((l, reason) -> {
                throw new IllegalStateException("listener bug");
            });
            lease.onLost((l, reason) -> second.countDown());
            store.forgotten.add("listener:throws");
            assertThat(second.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(lease.isValid()).isFalse();
            assertThat(lease.lossReason()).contains(LeaseLossReason.RENEWAL_REJECTED);
            assertThatThrownBy(lease::ensureValid).isInstanceOf(LeaseLostException.class);
            lease.close();
        }
    }

    @Test
    void aBlockingListenerStarvesNoOtherLeaseAndNoAcquire() throws Exception {
        FlakyStore store = new FlakyStore();
        CountDownLatch unblock = new CountDownLatch(1);
        try (LeaseManager manager = LeaseManager.of(store, SHORT)) {
            Lease victim = manager.acquire("blocking:victim", Duration.ZERO);
            CountDownLatch blocking = new CountDownLatch(1);
            List<String> threads = new ArrayList<>();
            victim.onLost((l, reason) -> {
                threads.add(Thread.currentThread().getName());
                blocking.countDown();
                try {
                    unblock.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            List<Lease> bystanders = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                bystanders.add(manager.acquire("blocking:bystander" + i, Duration.ZERO));
            }
            store.forgotten.add("blocking:victim");
            assertThat(blocking.await(5, TimeUnit.SECONDS)).isTrue();
            // The listener is still blocked: three lease times later every bystander is still renewed.
            Thread.sleep(SHORT.leaseTime().multipliedBy(3).toMillis());
            assertThat(unblock.getCount()).isEqualTo(1);
            assertThat(bystanders).allSatisfy(b -> assertThat(b.isValid()).as(b.toString()).isTrue());
            // An unrelated acquire goes through while the listener still blocks.
            try (Lease unrelated = manager.acquire("blocking:unrelated", Duration.ZERO)) {
                assertThat(unrelated.isValid()).isTrue();
            }
            assertThat(unblock.getCount()).isEqualTo(1);
            assertThat(threads).singleElement().asString().doesNotContain("watchdog").contains("lease-events");
            bystanders.forEach(Lease::close);
            victim.close();
        } finally {
            unblock.countDown();
        }
    }

    @Test
    void everyListenerIsToldExactlyOnceEvenWhenRegisteredAsTheLeaseIsLost() throws Exception {
        FlakyStore store = new FlakyStore();
        int rounds = 300;
        int listenersPerRound = 20;
        AtomicInteger[] calls = new AtomicInteger[rounds * listenersPerRound];
        try (LeaseManager manager = LeaseManager.of(store, LeaseConfig.builder()
                .leaseTime(Duration.ofMillis(40)).renewInterval(Duration.ofMillis(30)).build())) {
            CountDownLatch all = new CountDownLatch(calls.length);
            for (int r = 0; r < rounds; r++) {
                Lease lease = manager.acquire("once:" + r, Duration.ofSeconds(5));
                // The next renewal is refused (or the deadline passes first) while listeners are being registered.
                store.forgotten.add("once:" + r);
                for (int i = 0; i < listenersPerRound; i++) {
                    AtomicInteger count = new AtomicInteger();
                    calls[r * listenersPerRound + i] = count;
                    lease.onLost((l, reason) -> {
                        count.incrementAndGet();
                        all.countDown();
                    });
                    lease.isValid();
                    if (i % 5 == 0) {
                        Thread.sleep(1);
                    }
                }
                while (lease.isValid()) {
                    Thread.onSpinWait();
                }
                lease.close();
            }
            assertThat(all.await(20, TimeUnit.SECONDS)).isTrue();
            Thread.sleep(200);
            for (AtomicInteger count : calls) {
                assertThat(count).hasValue(1);
            }
        }
    }

    @Test
    void afterAFailedReleaseTheSameThreadNeverGetsTheClosedLeasesToken() {
        FlakyStore store = new FlakyStore();
        try (LeaseManager manager = LeaseManager.of(store, LeaseConfig.builder()
                .leaseTime(Duration.ofMillis(800)).renewInterval(Duration.ofMillis(200)).build())) {
            Lease first = manager.acquire("holder:identity", Duration.ZERO);
            store.failReleases.set(true);
            first.close();
            store.failReleases.set(false);
            assertThat(first.isValid()).isFalse();
            // The store still holds the closed lease's lock: this thread is a new holder and must wait for it.
            assertThat(manager.tryAcquire("holder:identity")).isEmpty();
            try (Lease second = manager.acquire("holder:identity", Duration.ofSeconds(5))) {
                assertThat(second.token()).isGreaterThan(first.token());
                assertThat(second.holder()).isNotEqualTo(first.holder());
            }
        }
    }

    @Test
    void reEnteringALostLeaseSaysItIsLost() throws Exception {
        FlakyStore store = new FlakyStore();
        try (LeaseManager manager = LeaseManager.of(store, SHORT)) {
            Lease lease = manager.acquire("reenter:lost", Duration.ZERO);
            CountDownLatch lost = new CountDownLatch(1);
            lease.onLost((l, r) -> lost.countDown());
            store.forgotten.add("reenter:lost");
            assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(() -> manager.acquire("reenter:lost", Duration.ZERO)).isInstanceOf(LeaseLostException.class)
                    .hasMessageContaining("reenter:lost");
            lease.close();
        }
    }

    @Test
    void heldLeasesShowsWhatIsHeldAndNothingAfterRelease() {
        try (LeaseManager manager = LeaseManager.of(InMemoryLeaseProvider.create())) {
            Lease lease = manager.acquire("snapshot:1", Duration.ZERO);
            assertThat(manager.heldLeases()).singleElement().satisfies(s -> {
                assertThat(s.fence()).isEqualTo(lease.fence());
                assertThat(s.holder()).isEqualTo(lease.holder());
                assertThat(s.valid()).isTrue();
            });
            lease.close();
            assertThat(manager.heldLeases()).isEmpty();
        }
    }
}
