package io.fenceguard.test.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseMode;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.core.spi.LeaseRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link LeaseProvider} must do, run against a real store. A provider's test extends this
 * class and supplies a fresh provider; the suite uses resource names of its own so stores can be shared.
 */
public abstract class LeaseProviderContract {

    private LeaseProvider provider;

    /** A provider on the store under test; closed after each test. */
    protected abstract LeaseProvider createProvider();

    /** Lease time of the expiry tests: long enough for one store round trip on a loaded machine. */
    protected Duration shortLease() {
        return Duration.ofMillis(600);
    }

    @BeforeEach
    void start() {
        provider = createProvider();
    }

    @AfterEach
    void stop() {
        provider.close();
    }

    protected LeaseProvider provider() {
        return provider;
    }

    protected static ResourceName freshResource(String what) {
        return ResourceName.of("contract:" + what + ":" + UUID.randomUUID());
    }

    private static LeaseRequest request(ResourceName resource, String holder, Duration leaseTime) {
        return new LeaseRequest(resource, holder, leaseTime);
    }

    @Test
    void tokensStrictlyIncreasePerResource() {
        ResourceName resource = freshResource("tokens");
        long last = 0;
        for (int i = 0; i < 20; i++) {
            LeaseRequest request = request(resource, "holder-" + i, Duration.ofSeconds(10));
            Grant grant = provider.acquire(request, Duration.ZERO);
            assertThat(grant.token().value()).isGreaterThan(last);
            last = grant.token().value();
            assertThat(provider.release(request, grant)).isTrue();
        }
    }

    @Test
    void aHeldLockIsNotGrantedToAnotherHolder() {
        ResourceName resource = freshResource("exclusive");
        LeaseRequest first = request(resource, "first", Duration.ofSeconds(10));
        Grant grant = provider.acquire(first, Duration.ZERO);
        assertThatThrownBy(() -> provider.acquire(request(resource, "second", Duration.ofSeconds(10)), Duration.ZERO))
                .isInstanceOf(LeaseTimeoutException.class);
        long start = System.nanoTime();
        assertThatThrownBy(() -> provider.acquire(request(resource, "second", Duration.ofSeconds(10)),
                Duration.ofMillis(300))).isInstanceOf(LeaseTimeoutException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300))
                .as("the wait holds: a busy resource ends the call soon after it").isLessThan(Duration.ofSeconds(5));
        provider.release(first, grant);
    }

    @Test
    void releaseByAnotherHolderIsRefusedAndChangesNothing() {
        ResourceName resource = freshResource("release");
        LeaseRequest owner = request(resource, "owner", Duration.ofSeconds(10));
        Grant grant = provider.acquire(owner, Duration.ZERO);
        LeaseRequest intruder = request(resource, "intruder", Duration.ofSeconds(10));
        assertThat(provider.release(intruder, grant)).isFalse();
        assertThatThrownBy(() -> provider.acquire(intruder, Duration.ZERO)).isInstanceOf(LeaseTimeoutException.class);
        assertThat(provider.renew(owner, grant).toCompletableFuture().join()).isTrue();
        assertThat(provider.release(owner, grant)).isTrue();
        assertThat(provider.release(owner, grant)).isFalse();
    }

    @Test
    void aWaiterGetsTheLockWhenItIsReleased() throws Exception {
        ResourceName resource = freshResource("handover");
        LeaseRequest first = request(resource, "first", Duration.ofSeconds(10));
        Grant grant = provider.acquire(first, Duration.ZERO);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Grant> waiting = pool.submit(() -> provider.acquire(request(resource, "second", Duration.ofSeconds(10)),
                    Duration.ofSeconds(10)));
            Thread.sleep(100);
            assertThat(waiting.isDone()).isFalse();
            provider.release(first, grant);
            Grant second = waiting.get(5, TimeUnit.SECONDS);
            assertThat(second.token()).isGreaterThan(grant.token());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void anExpiredLockCannotBeRenewedAndGoesToTheNextHolderWithAGreaterToken() throws Exception {
        ResourceName resource = freshResource("expiry");
        LeaseRequest first = request(resource, "first", shortLease());
        Grant grant = provider.acquire(first, Duration.ZERO);
        Grant second = provider.acquire(request(resource, "second", Duration.ofSeconds(10)), expiryWait());
        assertThat(second.token()).isGreaterThan(grant.token());
        assertThat(provider.renew(first, grant).toCompletableFuture().get(5, TimeUnit.SECONDS)).isFalse();
        assertThat(provider.release(first, grant)).isFalse();
    }

    /** How long a waiter may need before an expired holder's lock is free (lease plus any lock-delay). */
    protected Duration expiryWait() {
        return shortLease().multipliedBy(10);
    }

    @Test
    void mutualExclusionAndIncreasingTokensUnderContention() throws Exception {
        ResourceName resource = freshResource("contention");
        int threads = 6;
        int perThread = 25;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        try (LeaseManager manager = LeaseManager.of(provider, LeaseConfig.builder().leaseTime(Duration.ofSeconds(10)).build())) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < perThread; i++) {
                        try (Lease lease = manager.acquire(resource, Duration.ofSeconds(30))) {
                            if (inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            tokens.add(lease.token().value());
                            inside.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
            pool.shutdown();
        }
        assertThat(overlaps.get()).isZero();
        assertThat(tokens).hasSize(threads * perThread);
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("token %d in grant order", i).isGreaterThan(tokens.get(i - 1));
        }
    }

    @Test
    void reEntryKeepsTheTokenAndReleasesOnTheLastClose() {
        ResourceName resource = freshResource("reentry");
        try (LeaseManager manager = LeaseManager.of(provider)) {
            Lease outer = manager.acquire(resource, Duration.ZERO);
            Lease inner = manager.acquire(resource, Duration.ZERO);
            assertThat(inner.token()).isEqualTo(outer.token());
            inner.close();
            assertThat(outer.isValid()).isTrue();
            try (LeaseManager other = LeaseManager.of(provider)) {
                assertThat(other.tryAcquire(resource)).isEmpty();
                outer.close();
                try (Lease next = other.acquire(resource, Duration.ofSeconds(5))) {
                    assertThat(next.token()).isGreaterThan(outer.token());
                }
            }
        }
    }

    @Test
    void aLeaseCarriedInTheContextIsReEnteredOnAnotherThread() throws Exception {
        ResourceName resource = freshResource("carried");
        try (LeaseManager manager = LeaseManager.of(provider)) {
            try (Lease lease = manager.acquire(resource, Duration.ZERO); LeaseContext.Scope scope = LeaseContext.bind(lease)) {
                ExecutorService pool = Executors.newSingleThreadExecutor();
                try {
                    FencingToken inner = pool.submit(LeaseContext.wrap(() -> {
                        try (Lease again = manager.acquire(resource, Duration.ZERO)) {
                            return again.token();
                        }
                    })).get(10, TimeUnit.SECONDS);
                    assertThat(inner).isEqualTo(lease.token());
                } finally {
                    pool.shutdownNow();
                }
            }
        }
    }

    @Test
    void theManagerNoticesALeaseTheStoreLetExpire() throws Exception {
        ResourceName resource = freshResource("lost");
        // Renewed six times per lease: a renewal late by most of a lease (a loaded machine) still keeps it.
        Duration leaseTime = shortLease().multipliedBy(2);
        LeaseConfig config = LeaseConfig.builder().leaseTime(leaseTime).renewInterval(leaseTime.dividedBy(6)).build();
        try (LeaseManager manager = LeaseManager.of(provider, config)) {
            Lease lease = manager.acquire(resource, Duration.ZERO);
            CountDownLatch lost = new CountDownLatch(1);
            lease.onLost((l, reason) -> lost.countDown());
            // Another holder cannot take it while it is renewed, longer than one lease.
            Thread.sleep(leaseTime.multipliedBy(2).toMillis());
            assertThat(lease.isValid()).isTrue();
            assertThatThrownBy(() -> provider.acquire(request(resource, "other", Duration.ofSeconds(10)), Duration.ZERO))
                    .isInstanceOf(LeaseTimeoutException.class);
            // The store forgets it (as an expiry during a pause would): the manager's next renewal finds out.
            assertThat(forget(resource, lease)).isTrue();
            assertThat(lost.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(lease.isValid()).isFalse();
            assertThat(lease.lossReason()).isPresent();
            assertThat(lease.lossReason().get()).isIn(LeaseLossReason.RENEWAL_REJECTED, LeaseLossReason.EXPIRED,
                    LeaseLossReason.REVOKED);
            lease.close();
        }
    }

    /**
     * Makes the store drop the lease's lock as if it had expired while its holder was paused. The
     * default takes it over through the SPI after releasing it as its holder would not: subclasses whose
     * store can delete a lock directly may do so instead.
     */
    protected boolean forget(ResourceName resource, Lease lease) {
        LeaseRequest as = request(resource, lease.holder(), shortLease());
        return provider.release(as, new Grant(lease.token(), System.nanoTime()));
    }

    @Test
    void renewalByAnotherHolderIsRefusedAndChangesNothing() {
        ResourceName resource = freshResource("renew");
        LeaseRequest owner = request(resource, "owner", Duration.ofSeconds(10));
        Grant grant = provider.acquire(owner, Duration.ZERO);
        LeaseRequest intruder = request(resource, "intruder", Duration.ofSeconds(10));
        assertThat(provider.renew(intruder, grant).toCompletableFuture().join()).isFalse();
        assertThatThrownBy(() -> provider.acquire(intruder, Duration.ZERO)).isInstanceOf(LeaseTimeoutException.class);
        assertThat(provider.renew(owner, grant).toCompletableFuture().join()).isTrue();
        assertThat(provider.release(owner, grant)).isTrue();
    }

    @Test
    void anInterruptedWaiterStopsAndTakesNothing() throws Exception {
        ResourceName resource = freshResource("interrupt");
        LeaseRequest holder = request(resource, "holder", Duration.ofSeconds(10));
        Grant grant = provider.acquire(holder, Duration.ZERO);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            CountDownLatch started = new CountDownLatch(1);
            Future<Object> waiter = pool.submit(() -> {
                started.countDown();
                try {
                    return provider.acquire(request(resource, "waiter", Duration.ofSeconds(10)), Duration.ofSeconds(30));
                } catch (RuntimeException e) {
                    return Thread.currentThread().isInterrupted() ? e : new AssertionError("interrupt flag lost", e);
                }
            });
            started.await();
            Thread.sleep(200);
            pool.shutdownNow(); // interrupts the waiter
            Object outcome = waiter.get(10, TimeUnit.SECONDS);
            assertThat(outcome).isInstanceOf(FenceguardException.class);
            assertThat(((FenceguardException) outcome).resource()).isEqualTo(resource);
        } finally {
            pool.shutdownNow();
        }
        assertThat(provider.release(holder, grant)).isTrue();
        // The interrupted waiter holds nothing: the next holder gets the lock without waiting.
        LeaseRequest next = request(resource, "next", Duration.ofSeconds(10));
        Grant nextGrant = provider.acquire(next, Duration.ofSeconds(2));
        assertThat(nextGrant.token()).isGreaterThan(grant.token());
        assertThat(provider.release(next, nextGrant)).isTrue();
    }

    /**
     * Whether a second provider made by {@link #createProvider()} sees the same store: false for stores
     * that live in the provider itself (in-memory), whose tokens start again with it.
     */
    protected boolean storeOutlivesProvider() {
        return true;
    }

    @Test
    void tokensKeepGrowingForAnotherClientOfTheSameStore() {
        Assumptions.assumeTrue(storeOutlivesProvider(), "the store lives and dies with its provider");
        ResourceName resource = freshResource("clients");
        LeaseRequest first = request(resource, "first", Duration.ofSeconds(10));
        Grant grant = provider.acquire(first, Duration.ZERO);
        try (LeaseProvider other = createProvider()) {
            LeaseRequest second = request(resource, "second", Duration.ofSeconds(10));
            assertThatThrownBy(() -> other.acquire(second, Duration.ZERO)).isInstanceOf(LeaseTimeoutException.class);
            assertThat(provider.release(first, grant)).isTrue();
            Grant next = other.acquire(second, Duration.ofSeconds(2));
            assertThat(next.token()).isGreaterThan(grant.token());
            assertThat(other.release(second, next)).isTrue();
        }
    }

    @Test
    void badInputToTheProviderIsRefusedAndTakesNothing() {
        ResourceName resource = freshResource("badwait");
        LeaseRequest request = request(resource, "holder", Duration.ofSeconds(10));
        assertThatThrownBy(() -> provider.acquire(request, Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> provider.acquire(null, Duration.ZERO)).isInstanceOf(NullPointerException.class);
        Grant grant = provider.acquire(request(resource, "other", Duration.ofSeconds(10)), Duration.ZERO);
        provider.release(request(resource, "other", Duration.ofSeconds(10)), grant);
    }

    @Test
    void aSharedLeaseIsRefusedClearlyByAProviderWithoutSharedLeases() {
        Assumptions.assumeFalse(provider.modes().contains(LeaseMode.SHARED), "this provider grants shared leases");
        ResourceName resource = freshResource("shared");
        try (LeaseManager manager = LeaseManager.of(provider)) {
            assertThatThrownBy(() -> manager.acquireShared(resource, Duration.ZERO))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("grants no shared leases").hasMessageContaining(resource.value());
            // Nothing was taken: an exclusive lease is free at once.
            try (Lease lease = manager.acquire(resource, Duration.ZERO)) {
                assertThat(lease.mode()).isEqualTo(LeaseMode.EXCLUSIVE);
            }
        }
    }

    @Test
    void badInputIsRefusedBeforeTheStoreIsAsked() {
        assertThatThrownBy(() -> new LeaseRequest(null, "h", Duration.ofSeconds(1))).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new LeaseRequest(freshResource("bad"), "", Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LeaseRequest(freshResource("bad"), "h", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        try (LeaseManager manager = LeaseManager.of(provider)) {
            assertThatThrownBy(() -> manager.acquire("has space", Duration.ZERO)).hasMessageContaining("has space");
            assertThatThrownBy(() -> manager.acquire("contract:ok", Duration.ofMillis(-1)))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
