package io.fenceguard.redis;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseRequest;
import io.fenceguard.test.support.RedisProcess;
import io.fenceguard.test.support.faults.ClockShim;
import io.fenceguard.test.support.faults.ShiftedClock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * The Redis server's clock stepped while a lease is held, on a redis-server of the test's own under the
 * clock shim. Redis counts the lease on its wall clock: a forward step shortens it there, so the holder
 * must stop trusting it at the next renewal; a backward step only lengthens it there.
 */
class ClockJumpTest {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration RENEW = Duration.ofSeconds(1);

    private ShiftedClock clock;
    private RedisProcess redis;
    private RedissonClient client;
    private RedisLeaseProvider provider;
    private LeaseManager manager;

    @BeforeEach
    void start() {
        ClockShim.assumeAvailable();
        clock = ShiftedClock.create();
        redis = RedisProcess.start(clock);
        client = RedisClients.single(redis.uri());
        provider = RedisLeaseProvider.of(RedissonScriptClient.of(client), RedisClients.fastRedis().build());
        manager = LeaseManager.of(provider, LeaseConfig.builder().leaseTime(LEASE).renewInterval(RENEW).build());
    }

    @AfterEach
    void stop() {
        if (manager != null) {
            manager.close();
            client.shutdown();
        }
        if (redis != null) {
            redis.close();
        }
        if (clock != null) {
            clock.close();
        }
    }

    /** 1 s: the lock is still in Redis, only shorter, and renewals still succeed there; 20 s: it is gone. */
    @ParameterizedTest(name = "+{0} ms")
    @ValueSource(longs = {1_000, 20_000})
    void aForwardStepLosesTheLeaseWithinOneRenewalInterval(long stepMillis) throws Exception {
        Lease lease = manager.acquire("account:1", Duration.ofSeconds(1));
        CompletableFuture<Long> lostAt = new CompletableFuture<>();
        CompletableFuture<LeaseLossReason> reason = new CompletableFuture<>();
        lease.onLost((l, r) -> {
            lostAt.complete(System.nanoTime());
            reason.complete(r);
        });
        Thread.sleep(300);
        long steppedAt = System.nanoTime();
        clock.shiftBy(Duration.ofMillis(stepMillis));

        long window = lostAt.get(10, TimeUnit.SECONDS) - steppedAt;
        System.out.printf("forward step of %d ms: lease lost (%s) %.0f ms after the step; renewal interval %d ms%n",
                stepMillis, reason.get(), window / 1e6, RENEW.toMillis());
        assertThat(reason.get()).isEqualTo(LeaseLossReason.CLOCK_JUMP);
        assertThat(Duration.ofNanos(window)).as("window after the step").isLessThan(RENEW.plusMillis(500));
        assertThat(lease.isValid()).isFalse();
        assertThat(provider.forwardClockJumps()).isEqualTo(1);
        lease.close();
    }

    @Test
    void aBackwardStepIsCountedAndTheLeaseKept() throws Exception {
        try (Lease lease = manager.acquire("account:2", Duration.ofSeconds(1))) {
            Thread.sleep(300);
            clock.shiftBy(Duration.ofSeconds(-20));
            Thread.sleep(RENEW.multipliedBy(3).toMillis());
            assertThat(lease.isValid()).as("kept through three renewals after the step").isTrue();
            assertThat(provider.backwardClockJumps()).isEqualTo(1);
            assertThat(provider.forwardClockJumps()).isZero();
        }
    }

    @Test
    void noJumpIsSeenWhileTheClockIsLeftAlone() throws Exception {
        try (Lease lease = manager.acquire("account:3", Duration.ofSeconds(1))) {
            Thread.sleep(RENEW.multipliedBy(3).toMillis());
            assertThat(lease.isValid()).isTrue();
            assertThat(provider.forwardClockJumps() + provider.backwardClockJumps()).isZero();
        }
    }

    /**
     * Another process that has talked to this Redis before asks for the lock right after a +20 s step. Redis has
     * already dropped the first holder's lock (its wall clock passed the expiry), but the first holder still holds
     * its lease until its next renewal tells it of the jump. The second grant waits that out: when it comes, the
     * first holder has been told it lost its lease.
     */
    @Test
    void afterAForwardStepNoSecondHolderIsGrantedWhileTheFirstStillHolds() throws Exception {
        try (LeaseManager other = LeaseManager.of(RedisLeaseProvider.of(RedissonScriptClient.of(client),
                RedisClients.fastRedis().build()), LeaseConfig.builder().leaseTime(LEASE).renewInterval(RENEW).build())) {
            other.acquire("warm-up", Duration.ofSeconds(1)).close(); // the second process has talked to Redis before
            Lease first = manager.acquire("account:4", Duration.ofSeconds(1));
            CompletableFuture<Long> lostAt = new CompletableFuture<>();
            first.onLost((l, r) -> lostAt.complete(System.nanoTime()));
            Thread.sleep(300);
            clock.shiftBy(Duration.ofSeconds(20));

            try (Lease second = other.acquire("account:4", Duration.ofSeconds(10))) {
                long grantedAt = System.nanoTime();
                assertThat(first.isValid()).as("the first holder still believes it holds when the second is granted")
                        .isFalse();
                assertThat(lostAt).isDone();
                assertThat(grantedAt - lostAt.get()).isPositive();
                assertThat(second.token()).isGreaterThan(first.token());
                System.out.printf("+20 s step: second holder granted %.0f ms after the first learned of its loss%n",
                        (grantedAt - lostAt.get()) / 1e6);
            }
            first.close();
        }
    }

    /**
     * The jump is seen by an acquire that finds the lock still held, well before Redis lets it go, and the first
     * holder never renews (its renewals stalled), so nothing tells it of the jump: it believes in its lease until its
     * own deadline. The second grant is held until then, not only for the jump after it was seen.
     */
    @Test
    void aJumpSeenWhileTheLockIsHeldHoldsTheNextGrantUntilTheFirstHoldersDeadline() throws Exception {
        ResourceName resource = ResourceName.of("account:5");
        RedisLeaseConfig config = RedisClients.fastRedis().build(); // one key prefix: the same lock
        RedisLeaseProvider one = RedisLeaseProvider.of(RedissonScriptClient.of(client), config);
        RedisLeaseProvider other = RedisLeaseProvider.of(RedissonScriptClient.of(client), config);
        other.acquire(new LeaseRequest(ResourceName.of("warm-up"), "other", LEASE), Duration.ofSeconds(1));
        Grant first = one.acquire(new LeaseRequest(resource, "first", LEASE), Duration.ofSeconds(1));
        long firstDeadline = first.sentAtNanos() + LEASE.toNanos();
        Thread.sleep(200);
        clock.shiftBy(Duration.ofMillis(1_500)); // half a lease: Redis lets the lock go 1.5 s early

        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> other.acquire(new LeaseRequest(resource, "second", LEASE), Duration.ZERO))
                .isInstanceOf(LeaseTimeoutException.class) // the lock is still held; its reply showed the jump
                .hasMessageNotContaining("stays closed");
        Grant second = other.acquire(new LeaseRequest(resource, "second", LEASE), Duration.ofSeconds(10));
        long handedOutAt = System.nanoTime();
        System.out.printf("+1.5 s step seen while held: second grant handed out %.0f ms after the first holder's deadline%n",
                (handedOutAt - firstDeadline) / 1e6);
        assertThat(handedOutAt - firstDeadline).as("handed out after the first holder's deadline").isNotNegative();
        assertThat(second.token()).isGreaterThan(first.token());
    }
}
