package io.fenceguard.redis;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.LeaseLostException;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseObserver;
import io.fenceguard.test.support.TestServers;
import io.fenceguard.test.support.faults.PausableLeaseProvider;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/** A holder paused past its lease loses it; the next holder gets a greater token. */
class LeaseLossTest {

    private RedissonClient pausedClient;
    private RedissonClient otherClient;
    private RedisLeaseConfig redisConfig;
    private PausableLeaseProvider pausable;
    private LeaseManager paused;
    private LeaseManager other;

    @BeforeEach
    void setUp() {
        pausedClient = RedisClients.single(TestServers.redis().uri());
        otherClient = RedisClients.single(TestServers.redis().uri());
        redisConfig = RedisClients.fastRedis().lockDelay(Duration.ofMillis(300)).build();
        LeaseConfig config = LeaseConfig.builder().leaseTime(Duration.ofMillis(800)).build();
        pausable = PausableLeaseProvider.wrap(RedisLeaseProvider.of(RedissonScriptClient.of(pausedClient), redisConfig));
        paused = LeaseManager.of(pausable, config);
        other = RedisClients.manager(otherClient, redisConfig, config);
    }

    @AfterEach
    void tearDown() {
        paused.close();
        other.close();
        pausedClient.shutdown();
        otherClient.shutdown();
    }

    @Test
    void pausedHolderLosesItsLeaseToANewerTokenAndFailsFast() throws Exception {
        String resource = "account:" + System.nanoTime();
        List<LeaseLossReason> told = new CopyOnWriteArrayList<>();
        List<LeaseLossReason> toldManager = new CopyOnWriteArrayList<>();
        List<Long> acquiredTokens = new CopyOnWriteArrayList<>();
        paused.addObserver(new LeaseObserver() {
            @Override
            public void acquired(Lease lease, Duration waited) {
                acquiredTokens.add(lease.token().value());
            }

            @Override
            public void lost(Lease lease, LeaseLossReason reason) {
                toldManager.add(reason);
            }
        });

        Lease stale = paused.acquire(resource, Duration.ofSeconds(1));
        stale.onLost((lease, reason) -> told.add(reason));
        try (LeaseContext.Scope scope = LeaseContext.bind(stale)) {
            // Renewal keeps it alive well past the lease time while the holder lives.
            Thread.sleep(1_600);
            assertThat(stale.isValid()).isTrue();
            assertThat(other.tryAcquire(resource)).isEmpty();

            pausable.pauseRenewals(stale.resource(), Duration.ofSeconds(30));   // the stop-the-world pause begins
            try (Lease newer = other.acquire(resource, Duration.ofSeconds(5))) {
                assertThat(newer.token()).isGreaterThan(stale.token());
                assertThat(stale.isValid()).isFalse();
                assertThatThrownBy(LeaseContext::requireValid)
                        .isInstanceOf(LeaseLostException.class)
                        .hasMessageContaining(resource)
                        .hasMessageContaining(stale.token().toString())
                        .satisfies(e -> assertThat(((LeaseLostException) e).reason()).isEqualTo(LeaseLossReason.EXPIRED));
                assertThatThrownBy(() -> paused.acquire(resource, Duration.ZERO))
                        .as("re-entering a lost lease")
                        .isInstanceOf(LeaseLostException.class);
            }
        }
        stale.close();
        assertThat(pausable.withheldRenewals()).as("renewals the pause held back").isPositive();
        // Listeners and observers hear of a loss on the manager's event executor.
        awaitNotEmpty(told);
        awaitNotEmpty(toldManager);
        Thread.sleep(100);   // time for a second, wrong notification to arrive
        assertThat(told).containsExactly(LeaseLossReason.EXPIRED);
        assertThat(toldManager).containsExactly(LeaseLossReason.EXPIRED);
        assertThat(acquiredTokens).containsExactly(stale.token().value());
    }

    @Test
    void renewalRejectedByRedisMarksTheLeaseLost() throws Exception {
        String resource = "account:" + System.nanoTime();
        List<LeaseLossReason> told = new CopyOnWriteArrayList<>();
        Lease lease = paused.acquire(resource, Duration.ofSeconds(1));
        lease.onLost((l, reason) -> told.add(reason));
        // Somebody else's hand removes the lock (an operator, a flush): the next renewal finds it gone.
        otherClient.getKeys().deleteByPattern(redisConfig.keyPrefix() + "{" + resource + "}:lock");
        awaitNotEmpty(told);
        assertThat(told).containsExactly(LeaseLossReason.RENEWAL_REJECTED);
        assertThatThrownBy(lease::ensureValid).isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("no longer holds it");
        lease.close();
    }

    @Test
    void releaseNeverDeletesAnotherHoldersLock() throws Exception {
        String resource = "account:" + System.nanoTime();
        Lease stale = paused.acquire(resource, Duration.ofSeconds(1));
        pausable.pauseRenewals(stale.resource(), Duration.ofSeconds(30));
        try (Lease newer = other.acquire(resource, Duration.ofSeconds(5))) {
            stale.close();   // the paused holder wakes up and releases: compare-and-delete keeps newer's lock
            assertThat(paused.tryAcquire(resource)).isEmpty();
            assertThat(newer.isValid()).isTrue();
        }
    }

    @Test
    void closedLeaseIsNoLongerValidAndSaysSo() {
        Lease lease = paused.acquire("account:" + System.nanoTime(), Duration.ofSeconds(1));
        lease.close();
        lease.close();
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.remaining()).isEqualTo(Duration.ZERO);
        assertThatThrownBy(lease::ensureValid).isInstanceOf(FenceguardException.class)
                .isNotInstanceOf(LeaseLostException.class)
                .hasMessageContaining("already released");
    }

    private static void awaitNotEmpty(List<?> told) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (told.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }
}
