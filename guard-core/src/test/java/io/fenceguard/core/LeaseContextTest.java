package io.fenceguard.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.memory.InMemoryLeaseProvider;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class LeaseContextTest {

    private static LeaseManager manager;

    @BeforeAll
    static void start() {
        manager = LeaseManager.of(InMemoryLeaseProvider.create());
    }

    @AfterAll
    static void stop() {
        manager.close();
    }

    @Test
    void scopesClosedOutOfOrderNeverBindAClosedLeaseAgain() {
        try (Lease first = manager.acquire("ctx:first:" + System.nanoTime(), Duration.ofSeconds(1));
             Lease second = manager.acquire("ctx:second:" + System.nanoTime(), Duration.ofSeconds(1))) {
            LeaseContext.Scope firstScope = LeaseContext.bind(first);
            LeaseContext.Scope secondScope = LeaseContext.bind(second);

            firstScope.close();
            // The second lease stays bound; the first is gone.
            assertThat(LeaseContext.all()).containsExactly(second);

            secondScope.close();
            // Restoring "what was bound before the second bind" would bind the first lease again.
            assertThat(LeaseContext.all()).isEmpty();
            assertThat(LeaseContext.current()).isEmpty();
        }
    }

    @Test
    void callbackFormBindsTheLeaseAndAlwaysUnbindsAndReleases() {
        String resource = "ctx:" + System.nanoTime();
        FencingToken seen = manager.callWithLease(resource, Duration.ofSeconds(1), lease -> {
            assertThat(LeaseContext.current()).contains(lease);
            assertThat(LeaseContext.requireValid()).isSameAs(lease);
            return lease.token();
        });
        assertThat(seen.value()).isPositive();
        assertThat(LeaseContext.current()).isEmpty();

        assertThatThrownBy(() -> manager.callWithLease(resource, Duration.ofSeconds(1), lease -> {
            throw new IllegalStateException("business failure");
        })).hasMessage("business failure");
        assertThat(LeaseContext.current()).isEmpty();
        assertThat(manager.tryAcquire(resource)).as("released after the exception").isPresent()
                .get().satisfies(Lease::close);
    }

    @Test
    void checkedExceptionsPassThroughUnchanged() {
        assertThatThrownBy(() -> manager.callWithLease("ctx:checked", Duration.ofSeconds(1), lease -> {
            throw new java.io.IOException("disk");
        })).isInstanceOf(java.io.IOException.class);
        assertThat(LeaseContext.current()).isEmpty();
    }

    @Test
    void nestedScopesRestoreTheOuterLease() {
        try (Lease a = manager.acquire("ctx:a" + System.nanoTime(), Duration.ofSeconds(1));
             Lease b = manager.acquire("ctx:b" + System.nanoTime(), Duration.ofSeconds(1));
             LeaseContext.Scope outer = LeaseContext.bind(a)) {
            try (LeaseContext.Scope inner = LeaseContext.bind(b)) {
                assertThat(LeaseContext.current()).contains(b);
                assertThat(LeaseContext.current(a.resource())).contains(a);
                assertThat(LeaseContext.all()).containsExactly(a, b);
            }
            assertThat(LeaseContext.current()).contains(a);
        }
        assertThat(LeaseContext.all()).isEmpty();
    }

    @Test
    void contextTravelsIntoExecutorsAndFuturesOnlyWhenCarried() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Lease lease = manager.acquire("ctx:" + System.nanoTime(), Duration.ofSeconds(1));
             LeaseContext.Scope scope = LeaseContext.bind(lease)) {
            assertThat(CompletableFuture.supplyAsync(LeaseContext::current, pool).get()).isEmpty();
            assertThat(CompletableFuture.supplyAsync(LeaseContext.wrapSupplier(LeaseContext::current), pool).get())
                    .contains(lease);
            CompletableFuture<Object> viaExecutor = new CompletableFuture<>();
            LeaseContext.propagating(pool).execute(() -> viaExecutor.complete(LeaseContext.current().orElse(null)));
            assertThat(viaExecutor.get()).isSameAs(lease);
            // The pool thread is clean again afterwards.
            assertThat(CompletableFuture.supplyAsync(LeaseContext::current, pool).get()).isEmpty();
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void presentedTokenIsBoundLikeALeaseButHoldsNothing() {
        ResourceName resource = ResourceName.of("ctx:presented" + System.nanoTime());
        Lease presented = Lease.presented(Fence.of(resource, FencingToken.of(77)), "http:127.0.0.1");
        assertThat(presented.isPresented()).isTrue();
        assertThat(presented.holder()).isEqualTo("presented:http:127.0.0.1");
        assertThat(presented.toString()).contains("holder presented:http:127.0.0.1");
        // nothing is ever told about a presented fence, and asking to be told is harmless
        presented.onLost((lease, reason) -> { });
        presented.onAtRisk((lease, remaining) -> { });
        presented.onReleaseRequested((lease, reason) -> { });
        assertThat(presented.isAtRisk()).isFalse();
        try (LeaseContext.Scope scope = LeaseContext.bind(presented)) {
            assertThat(LeaseContext.requireValid().token()).isEqualTo(FencingToken.of(77));
            assertThat(LeaseContext.requireValid().fence()).isEqualTo(Fence.of(resource, FencingToken.of(77)));
            // Nothing is held in the store: a real lease on the same resource is free.
            try (Lease real = manager.acquire(resource, Duration.ofMillis(200))) {
                assertThat(real.isPresented()).isFalse();
            }
        }
        presented.close();
        assertThat(presented.isValid()).isFalse();
        assertThatThrownBy(() -> Lease.presented(null, "x")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void presentedFenceStaysValidUntilClosedAndIsNeverLost() {
        ResourceName resource = ResourceName.of("ctx:presented-state" + System.nanoTime());
        Lease presented = Lease.presented(Fence.of(resource, FencingToken.of(5)), "kafka:orders-0@7");
        assertThat(presented.isValid()).isTrue();
        assertThat(presented.mode()).isEqualTo(LeaseMode.EXCLUSIVE);
        assertThat(presented.lossReason()).isEmpty();
        // nothing renews it, and nothing runs out: far more time is left than any run lasts
        assertThat(presented.remaining()).isGreaterThan(Duration.ofDays(365L * 50));
        presented.ensureValid();

        presented.close();
        presented.close();
        assertThat(presented.isValid()).isFalse();
        assertThat(presented.remaining()).isEqualTo(Duration.ZERO);
        assertThat(presented.lossReason()).isEmpty();
        assertThat(presented.toString()).doesNotContain("lost");
        // closed, not lost: it says it was released
        assertThatThrownBy(presented::ensureValid).isInstanceOf(FenceguardException.class)
                .isNotInstanceOf(LeaseLostException.class).hasMessageContaining("already released");
    }

    @Test
    void requireValidWithoutALeaseSaysSo() {
        assertThatThrownBy(LeaseContext::requireValid).isInstanceOf(FenceguardException.class)
                .hasMessageContaining("no lease");
    }
}
