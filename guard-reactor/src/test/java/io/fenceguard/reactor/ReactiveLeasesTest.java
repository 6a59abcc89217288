package io.fenceguard.reactor;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.LeaseLostException;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.test.support.TestRedisson;
import io.fenceguard.test.support.faults.PausableLeaseProvider;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** Leases owned by reactive chains, on the test Redis. */
class ReactiveLeasesTest {

    private PausableLeaseProvider provider;
    private LeaseManager manager;
    private ReactiveLeases leases;
    private String resource;

    @BeforeEach
    void setUp() {
        provider = PausableLeaseProvider.wrap(RedisLeaseProvider.of(RedissonScriptClient.of(TestRedisson.shared())));
        manager = LeaseManager.of(provider, LeaseConfig.builder().leaseTime(Duration.ofSeconds(2))
                .renewInterval(Duration.ofMillis(300)).build());
        leases = ReactiveLeases.of(manager);
        resource = "reactive:" + UUID.randomUUID();
    }

    @AfterEach
    void tearDown() {
        manager.close();
    }

    /** Whether another holder can take the resource now (and gives it back at once). */
    private boolean free() {
        LeaseManager other = LeaseManager.of(RedisLeaseProvider.of(RedissonScriptClient.of(TestRedisson.shared())));
        try {
            Optional<Lease> lease = other.tryAcquire(resource);
            lease.ifPresent(Lease::close);
            return lease.isPresent();
        } finally {
            other.close();
        }
    }

    @Test
    void the_lease_is_in_the_context_downstream_and_released_on_completion() {
        AtomicReference<Lease> seen = new AtomicReference<>();
        String result = leases.withLease(resource, Duration.ofSeconds(5),
                ReactiveLeaseContext.current()
                        .doOnNext(seen::set)
                        .publishOn(Schedulers.parallel())              // another thread: the context follows
                        .flatMap(lease -> ReactiveLeaseContext.requireValid())
                        .map(lease -> {
                            assertThat(free()).as("held while the chain runs").isFalse();
                            return lease.resource().value() + "@" + lease.token();
                        }))
                .block(Duration.ofSeconds(10));

        assertThat(seen.get()).isNotNull();
        assertThat(result).isEqualTo(resource + "@" + seen.get().token());
        assertThat(seen.get().isValid()).as("released after completion").isFalse();
        assertThat(free()).isTrue();
        assertThat(LeaseContext.current()).as("no thread was left bound").isEmpty();
    }

    @Test
    void released_on_error() {
        AtomicReference<Lease> seen = new AtomicReference<>();
        Mono<String> failing = leases.withLease(resource, Duration.ofSeconds(5), lease -> {
            seen.set(lease);
            return Mono.error(new IllegalStateException("boom"));
        });

        assertThatThrownBy(() -> failing.block(Duration.ofSeconds(10))).hasMessageContaining("boom");
        assertThat(seen.get().isValid()).isFalse();
        assertThat(free()).isTrue();
    }

    @Test
    void released_on_cancel() throws Exception {
        AtomicReference<Lease> seen = new AtomicReference<>();
        Disposable running = leases.withLease(resource, Duration.ofSeconds(5),
                ReactiveLeaseContext.current().doOnNext(seen::set).then(Mono.never())).subscribe();
        awaitTrue(() -> seen.get() != null);
        assertThat(free()).isFalse();

        running.dispose();

        awaitTrue(() -> !seen.get().isValid());
        awaitTrue(this::free);
    }

    @Test
    void a_flux_holds_the_lease_until_its_last_element() {
        List<Boolean> heldWhileEmitting = new CopyOnWriteArrayList<>();
        List<Long> tokens = leases.withLease(resource, Duration.ofSeconds(5),
                        Flux.range(1, 3).concatMap(i -> ReactiveLeaseContext.current())
                                .doOnNext(l -> heldWhileEmitting.add(!free())).map(l -> l.token().value()))
                .collectList().block(Duration.ofSeconds(10));

        assertThat(tokens).hasSize(3).containsOnly(tokens.get(0));
        assertThat(heldWhileEmitting).containsOnly(true);
        assertThat(free()).isTrue();
    }

    @Test
    void usingWhen_with_acquire_and_release() {
        Long token = Mono.usingWhen(leases.acquire(resource, Duration.ofSeconds(5)),
                lease -> Mono.just(lease.token().value()), leases::release).block(Duration.ofSeconds(10));
        assertThat(token).isPositive();
        assertThat(free()).isTrue();
    }

    @Test
    void two_chains_exclude_each_other_and_tokens_grow() {
        ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<Long> tokens = Flux.range(0, 6)
                .flatMap(i -> leases.withLease(resource, Duration.ofSeconds(20), lease -> {
                    if (inside.incrementAndGet() > 1) {
                        overlaps.incrementAndGet();
                    }
                    events.add("in " + lease.token());
                    return Mono.delay(Duration.ofMillis(50)).then(Mono.fromCallable(() -> {
                        inside.decrementAndGet();
                        return lease.token().value();
                    }));
                }), 6)
                .collectList().block(Duration.ofSeconds(30));

        assertThat(overlaps.get()).as("never two chains inside at once: %s", events).isZero();
        assertThat(tokens).hasSize(6).doesNotHaveDuplicates();
    }

    @Test
    void a_nested_lease_on_the_same_resource_in_the_same_chain_is_reentered() {
        List<Long> tokens = leases.withLease(resource, Duration.ofSeconds(5), outer ->
                        leases.withLease(resource, Duration.ofSeconds(1), inner ->
                                Mono.just(List.of(outer.token().value(), inner.token().value()))))
                .block(Duration.ofSeconds(10));
        assertThat(tokens.get(1)).isEqualTo(tokens.get(0));
        assertThat(free()).isTrue();
    }

    @Test
    void a_busy_resource_errors_with_a_timeout_and_a_cancelled_waiter_leaves_no_lock() throws Exception {
        Lease holder = manager.acquire(resource, Duration.ofSeconds(1));
        assertThatThrownBy(() -> leases.withLease(resource, Duration.ofMillis(200), Mono.just(1))
                .block(Duration.ofSeconds(10))).isInstanceOf(LeaseTimeoutException.class);

        // A waiter cancelled while the store still waits: when the holder lets go, the waiter's grant is released.
        Disposable waiting = leases.acquire(resource, Duration.ofSeconds(5)).subscribe();
        Thread.sleep(200);
        waiting.dispose();
        holder.close();
        Thread.sleep(500);
        awaitTrue(this::free);
    }

    @Test
    void losing_the_lease_ends_the_chain_with_LeaseLostException() throws Exception {
        AtomicReference<Lease> seen = new AtomicReference<>();
        Mono<Object> longWork = leases.withLease(resource, Duration.ofSeconds(5), lease -> {
            seen.set(lease);
            provider.pauseRenewals(ResourceName.of(resource), Duration.ofSeconds(30));   // a stop-the-world pause
            return Mono.never();
        });

        long start = System.nanoTime();
        assertThatThrownBy(() -> longWork.block(Duration.ofSeconds(15)))
                .isInstanceOfSatisfying(LeaseLostException.class,
                        e -> assertThat(e.reason()).isIn(LeaseLossReason.EXPIRED, LeaseLossReason.RENEWAL_REJECTED));
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(10_000);
        assertThat(seen.get().isValid()).isFalse();
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 10 s");
            }
            Thread.sleep(20);
        }
    }
}
