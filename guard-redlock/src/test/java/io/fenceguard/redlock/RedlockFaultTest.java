package io.fenceguard.redlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseRequest;
import io.fenceguard.redlock.internal.RedlockKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.redisson.api.RedissonClient;

/** Redlock with masters that die, lose their data, or are too few: own redis-server processes per test. */
class RedlockFaultTest {

    private static final Duration MASTER_TIMEOUT = Duration.ofMillis(200);
    private static final RedlockLeaseConfig CONFIG = RedlockLeaseConfig.builder().masterTimeout(MASTER_TIMEOUT).build();

    private static ResourceName resource(String what) {
        return ResourceName.of("redlock:" + what + ":" + UUID.randomUUID());
    }

    private static LeaseRequest request(ResourceName resource, String holder) {
        return new LeaseRequest(resource, holder, Duration.ofSeconds(10));
    }

    /** Acquires and releases once as a new holder; returns the token. */
    private static long cycle(RedlockLeaseProvider provider, ResourceName resource) {
        LeaseRequest r = request(resource, "h-" + UUID.randomUUID());
        Grant g = provider.acquire(r, Duration.ofSeconds(5));
        assertThat(provider.release(r, g)).isTrue();
        return g.token().value();
    }

    @Test
    void withOneOfThreeMastersDownLeasesAreStillGrantedExclusiveAndWithGrowingTokens() {
        try (RedisMasters masters = RedisMasters.start(3);
             RedlockLeaseProvider provider = RedlockLeaseProvider.of(masters.clients(), CONFIG)) {
            ResourceName resource = resource("one-down");
            long last = cycle(provider, resource);
            masters.server(1).kill();
            for (int i = 0; i < 10; i++) {
                long token = cycle(provider, resource);
                assertThat(token).isGreaterThan(last);
                last = token;
            }
            LeaseRequest holder = request(resource, "holder");
            Grant held = provider.acquire(holder, Duration.ZERO);
            assertThat(held.token().value()).isGreaterThan(last);
            assertThatThrownBy(() -> provider.acquire(request(resource, "other"), Duration.ofMillis(300)))
                    .isInstanceOf(LeaseTimeoutException.class);
            assertThat(provider.renew(holder, held).toCompletableFuture().join()).isTrue();
            assertThat(provider.release(holder, held)).isTrue();
        }
    }

    @Test
    void withFiveMastersTwoMayBeDownButNotThree() {
        try (RedisMasters masters = RedisMasters.start(5);
             RedlockLeaseProvider provider = RedlockLeaseProvider.of(masters.clients(), CONFIG)) {
            assertThat(provider.quorum()).isEqualTo(3);
            ResourceName resource = resource("five");
            long last = cycle(provider, resource);
            masters.server(0).kill();
            masters.server(3).kill();
            long token = cycle(provider, resource);
            assertThat(token).isGreaterThan(last);
            masters.server(4).kill();
            assertThatThrownBy(() -> cycle(provider, resource))
                    .isInstanceOf(LeaseUnavailableException.class)
                    .hasMessageContaining("only 2 of 5 Redis masters answered");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"flushall", "restart-empty"})
    void aMasterThatLosesItsDataNeverMakesTokensGoBack(String loss) {
        try (RedisMasters masters = RedisMasters.start(3);
             RedlockLeaseProvider provider = RedlockLeaseProvider.of(masters.clients(), CONFIG)) {
            ResourceName resource = resource("loss");
            long last = 0;
            for (int i = 0; i < 5; i++) {
                last = cycle(provider, resource);
            }
            for (int round = 0; round < 6; round++) {
                var server = masters.server(round % 3);
                if (loss.equals("flushall")) {
                    server.flushAll();
                } else {
                    server.restart();
                }
                long token = cycle(provider, resource);
                assertThat(token).as("token after %s of master %d", loss, round % 3).isGreaterThan(last);
                last = token;
            }
            // A holder keeps two of three locks when the third loses its data: nobody else gets a majority.
            LeaseRequest holder = request(resource, "holder");
            Grant held = provider.acquire(holder, Duration.ZERO);
            masters.server(2).flushAll();
            assertThatThrownBy(() -> provider.acquire(request(resource, "other"), Duration.ofMillis(300)))
                    .isInstanceOf(LeaseTimeoutException.class);
            assertThat(provider.release(holder, held)).isTrue();
            assertThat(cycle(provider, resource)).isGreaterThan(held.token().value());
        }
    }

    @Test
    void withOnlyAMinorityUpAnAcquireIsRefusedWithinItsWait() {
        try (RedisMasters masters = RedisMasters.start(3);
             RedlockLeaseProvider provider = RedlockLeaseProvider.of(masters.clients(), CONFIG)) {
            ResourceName resource = resource("minority");
            cycle(provider, resource);
            masters.server(0).kill();
            masters.server(2).kill();
            Duration wait = Duration.ofMillis(800);
            long start = System.nanoTime();
            assertThatThrownBy(() -> provider.acquire(request(resource, "late"), wait))
                    .isInstanceOf(LeaseUnavailableException.class)
                    .hasMessageContaining(resource.value())
                    .hasMessageContaining("only 1 of 3 Redis masters answered");
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(took).isGreaterThanOrEqualTo(wait)
                    .isLessThan(wait.plus(MASTER_TIMEOUT.multipliedBy(3)).plusMillis(500));
            // The one master left holds no stray lock of the failed attempts.
            assertThat(masters.clients().get(1).getKeys().countExists(
                    RedlockKeys.of(CONFIG.keyPrefix(), resource).lock())).isZero();
        }
    }

    @Test
    void aHeldLeaseIsLostWhenAMajorityOfMastersGoes() throws Exception {
        try (RedisMasters masters = RedisMasters.start(3);
             RedlockLeaseProvider provider = RedlockLeaseProvider.of(masters.clients(), CONFIG);
             LeaseManager manager = LeaseManager.of(provider, LeaseConfig.builder()
                     .leaseTime(Duration.ofSeconds(1)).renewInterval(Duration.ofMillis(250)).build())) {
            Lease lease = manager.acquire(resource("held"), Duration.ZERO);
            CompletableFuture<LeaseLossReason> lost = new CompletableFuture<>();
            lease.onLost((l, reason) -> lost.complete(reason));
            Thread.sleep(600);
            assertThat(lease.isValid()).isTrue();
            masters.server(0).kill();
            masters.server(1).kill();
            long start = System.nanoTime();
            assertThat(lost.get(5, TimeUnit.SECONDS)).isEqualTo(LeaseLossReason.EXPIRED);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1500));
            assertThat(lease.isValid()).isFalse();
            lease.close();
        }
    }

    @Test
    void competingClientsOnSeparateProvidersNeverOverlapAndTokensFollowGrantOrder() throws Exception {
        try (RedisMasters masters = RedisMasters.start(3)) {
            ResourceName resource = resource("race");
            RedlockLeaseProvider[] providers = new RedlockLeaseProvider[3];
            List<RedissonClient> own = new ArrayList<>();
            try {
                for (int p = 0; p < providers.length; p++) {
                    List<RedissonClient> clients = new ArrayList<>();
                    for (int m = 0; m < 3; m++) {
                        clients.add(RedisMasters.client(masters.server(m).uri()));
                    }
                    own.addAll(clients);
                    providers[p] = RedlockLeaseProvider.of(clients, CONFIG);
                }
                AtomicReference<String> inside = new AtomicReference<>();
                List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
                AtomicInteger overlaps = new AtomicInteger();
                ExecutorService pool = Executors.newFixedThreadPool(6);
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < 6; t++) {
                    RedlockLeaseProvider provider = providers[t % 3];
                    done.add(pool.submit(() -> {
                        for (int i = 0; i < 15; i++) {
                            LeaseRequest r = request(resource, "t-" + UUID.randomUUID());
                            Grant g = provider.acquire(r, Duration.ofSeconds(30));
                            if (!inside.compareAndSet(null, r.holder())) {
                                overlaps.incrementAndGet();
                            }
                            tokens.add(g.token().value());
                            inside.set(null);
                            provider.release(r, g);
                        }
                        return null;
                    }));
                }
                for (var f : done) {
                    f.get(120, TimeUnit.SECONDS);
                }
                pool.shutdown();
                assertThat(overlaps.get()).isZero();
                assertThat(tokens).hasSize(90).doesNotHaveDuplicates();
                for (int i = 1; i < tokens.size(); i++) {
                    assertThat(tokens.get(i)).isGreaterThan(tokens.get(i - 1));
                }
            } finally {
                for (RedlockLeaseProvider p : providers) {
                    if (p != null) {
                        p.close();
                    }
                }
                own.forEach(RedissonClient::shutdown);
            }
        }
    }
}
