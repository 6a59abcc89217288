package io.fenceguard.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.core.spi.LeaseRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Semaphore permits and all-or-none multi-resource leases, on the in-memory store. */
class PermitsAndMultiLeaseTest {

    private final LeaseProvider store = InMemoryLeaseProvider.create();

    @Test
    void permitsAreLeasesOnDistinctSlotsAndNoMoreThanTheirNumberAreGranted() {
        try (LeaseManager manager = LeaseManager.of(store)) {
            Lease first = manager.acquirePermit("pool", 2, Duration.ZERO);
            Lease second = manager.acquirePermit("pool", 2, Duration.ZERO);
            assertThat(Set.of(first.resource().value(), second.resource().value())).containsExactlyInAnyOrder("pool#0", "pool#1");
            assertThat(manager.tryAcquirePermit("pool", 2)).isEmpty();
            assertThatThrownBy(() -> manager.acquirePermit("pool", 2, Duration.ofMillis(150)))
                    .isInstanceOf(LeaseTimeoutException.class).hasMessageContaining("'pool'").hasMessageContaining("2 permits");

            Lease freed = first;
            freed.close();
            Optional<Lease> third = manager.tryAcquirePermit("pool", 2);
            assertThat(third).isPresent();
            assertThat(third.get().resource()).isEqualTo(freed.resource());
            assertThat(third.get().token()).isGreaterThan(freed.token());
            third.get().close();
            second.close();
        }
    }

    @Test
    void aWaitingPermitIsGrantedWhenAHolderReleases() throws Exception {
        try (LeaseManager manager = LeaseManager.of(store)) {
            Lease held = manager.acquirePermit("gate", 1, Duration.ZERO);
            CompletableFuture<Lease> waiting = CompletableFuture.supplyAsync(() -> manager.acquirePermit("gate", 1, Duration.ofSeconds(5)));
            Thread.sleep(200);
            assertThat(waiting).isNotDone();
            held.close();
            Lease next = waiting.get(5, TimeUnit.SECONDS);
            assertThat(next.resource().value()).isEqualTo("gate#0");
            assertThat(next.token()).isGreaterThan(held.token());
            next.close();
        }
    }

    @Test
    void permitsFencedPerResourceCarryTheResourcesOwnIncreasingTokens() {
        try (LeaseManager manager = LeaseManager.of(store)) {
            FencingToken ordinary;
            try (Lease lease = manager.acquire("ledger", Duration.ZERO)) {
                ordinary = lease.token();
            }
            List<Lease> permits = new ArrayList<>();
            FencingToken last = ordinary;
            for (int i = 0; i < 3; i++) {
                Lease permit = manager.acquirePermit(ResourceName.of("ledger"), 3, PermitFencing.PER_RESOURCE, Duration.ZERO);
                assertThat(permit.resource().value()).isEqualTo("ledger");
                assertThat(permit.token()).isGreaterThan(last);
                last = permit.token();
                permits.add(permit);
            }
            assertThat(manager.heldLeases()).hasSize(3);
            // The permits hold slots, not the resource: an exclusive lease on it is still granted, above them all.
            try (Lease exclusive = manager.acquire("ledger", Duration.ZERO)) {
                assertThat(exclusive.token()).isGreaterThan(last);
                assertThat(permits).doesNotContain(exclusive);
                assertThatThrownBy(() -> manager.acquirePermit(ResourceName.of("ledger"), 3, PermitFencing.PER_RESOURCE, Duration.ZERO))
                        .isInstanceOf(IllegalStateException.class).hasMessageContaining("'ledger'");
            }
            permits.forEach(Lease::close);
            assertThat(manager.heldLeases()).isEmpty();
        }
    }

    @Test
    void badPermitArgumentsAreRefused() {
        try (LeaseManager manager = LeaseManager.of(store)) {
            assertThatThrownBy(() -> manager.acquirePermit("pool", 0, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'pool'");
            assertThatThrownBy(() -> manager.acquirePermit("pool", LeaseManager.MAX_PERMITS + 1, Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> manager.acquirePermit("pool", 2, Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> manager.acquirePermit("x".repeat(ResourceName.MAX_LENGTH), 2, Duration.ZERO))
                    .isInstanceOf(InvalidResourceNameException.class);
            assertThat(manager.heldLeases()).isEmpty();
        }
    }

    @Test
    void aMultiLeaseHoldsEveryResourceWithItsOwnTokenInCanonicalOrder() {
        try (LeaseManager manager = LeaseManager.of(store); LeaseManager other = LeaseManager.of(store)) {
            try (MultiLease all = manager.acquireAll(List.of("c", "a", "b", "a"), Duration.ZERO)) {
                assertThat(all.resources()).extracting(ResourceName::value).containsExactly("a", "b", "c");
                assertThat(all.lease("b").token()).isEqualTo(all.token("b"));
                assertThat(new HashSet<>(all.leases().stream().map(Lease::token).toList())).hasSize(3);
                assertThat(all.isValid()).isTrue();
                for (String r : List.of("a", "b", "c")) {
                    assertThat(other.tryAcquire(r)).as(r).isEmpty();
                }
                assertThatThrownBy(() -> all.lease("d")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'d'");
                try (LeaseContext.Scope scope = LeaseContext.bind(all.lease("c"))) {
                    assertThat(LeaseContext.current().orElseThrow().fence()).isEqualTo(new Fence(ResourceName.of("c"), all.token("c")));
                }
                all.close();
                assertThat(all.isValid()).isFalse();
            }
            for (String r : List.of("a", "b", "c")) {
                other.tryAcquire(r).orElseThrow().close();
            }
            assertThatThrownBy(() -> manager.acquireAll(List.of(), Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aMultiLeaseThatCannotHaveEveryResourceHoldsNone() {
        try (LeaseManager manager = LeaseManager.of(store); LeaseManager other = LeaseManager.of(store)) {
            Lease blocker = other.acquire("m", Duration.ZERO);
            assertThatThrownBy(() -> manager.acquireAll(List.of("z", "m", "a"), Duration.ofMillis(200)))
                    .isInstanceOf(LeaseTimeoutException.class).hasMessageContaining("'m'").hasMessageContaining("released");
            assertThat(manager.heldLeases()).isEmpty();
            other.tryAcquire("a").orElseThrow().close();
            other.tryAcquire("z").orElseThrow().close();
            blocker.close();
        }
    }

    @Test
    void holdersAskingForOverlappingSetsInOppositeOrdersNeverDeadlock() throws Exception {
        LeaseConfig config = LeaseConfig.builder().leaseTime(Duration.ofSeconds(30)).build();
        try (LeaseManager one = LeaseManager.of(store, config); LeaseManager two = LeaseManager.of(store, config)) {
            int rounds = 300;
            AtomicInteger overlaps = new AtomicInteger();
            AtomicInteger inside = new AtomicInteger();
            CompletableFuture<Void> forward = CompletableFuture.runAsync(() -> {
                for (int i = 0; i < rounds; i++) {
                    try (MultiLease both = one.acquireAll(List.of("x", "y"), Duration.ofSeconds(10))) {
                        if (inside.incrementAndGet() > 1) {
                            overlaps.incrementAndGet();
                        }
                        inside.decrementAndGet();
                    }
                }
            });
            CompletableFuture<Void> backward = CompletableFuture.runAsync(() -> {
                for (int i = 0; i < rounds; i++) {
                    try (MultiLease both = two.acquireAll(List.of("y", "x"), Duration.ofSeconds(10))) {
                        if (inside.incrementAndGet() > 1) {
                            overlaps.incrementAndGet();
                        }
                        inside.decrementAndGet();
                    }
                }
            });
            // With a timeout of ten seconds per round, a cycle would show as a timeout here rather than a hang.
            CompletableFuture.allOf(forward, backward).get(60, TimeUnit.SECONDS);
            assertThat(overlaps.get()).isZero();
        }
    }

    @Test
    void losingOnePartLosesTheMultiLeaseAndTellsOnce() throws Exception {
        // Renewals of 'b' are answered "not yours", as a store that lost its lock would.
        LeaseProvider forgetful = new LeaseProvider() {
            @Override
            public Grant acquire(LeaseRequest request, Duration wait) {
                return store.acquire(request, wait);
            }

            @Override
            public CompletionStage<Boolean> renew(LeaseRequest request, Grant grant) {
                return request.resource().value().equals("b") ? CompletableFuture.completedFuture(false)
                        : store.renew(request, grant);
            }

            @Override
            public boolean release(LeaseRequest request, Grant grant) {
                return store.release(request, grant);
            }
        };
        LeaseConfig config = LeaseConfig.builder().leaseTime(Duration.ofMillis(600)).renewInterval(Duration.ofMillis(150)).build();
        try (LeaseManager manager = LeaseManager.of(forgetful, config)) {
            MultiLease all = manager.acquireAll(List.of("b", "a"), Duration.ZERO);
            List<String> told = new CopyOnWriteArrayList<>();
            CountDownLatch lost = new CountDownLatch(1);
            all.onLost((part, reason) -> {
                told.add(part.resource() + " " + reason);
                lost.countDown();
            });
            assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(all.isValid()).isFalse();
            assertThat(all.invalidPart()).map(Lease::resource).map(ResourceName::value).contains("b");
            assertThat(all.lease("a").isValid()).isTrue();
            assertThatThrownBy(all::ensureValid).isInstanceOf(LeaseLostException.class).hasMessageContaining("'b'");
            Thread.sleep(300);
            assertThat(told).containsExactly("b " + LeaseLossReason.RENEWAL_REJECTED);
            all.close();
            assertThat(manager.heldLeases()).isEmpty();
        }
    }
}
