package io.fenceguard.redis;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.redis.internal.LeaseKeys;
import io.fenceguard.test.support.RedisProcess;
import io.fenceguard.test.support.faults.DelayProxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Every public call keeps its wait or timeout whatever Redis does, on a redis-server of the test's own that
 * is frozen (SIGSTOP), dead, or behind a long link. The Redis client here has Redisson's usual stacked
 * settings (3 s timeout, 3 retries), which alone would hold a call for over 10 s. Bounds are asserted with
 * a margin; measured times are printed.
 */
class TimeBoundsTest {

    private static final Duration WAIT = Duration.ofSeconds(1);
    private static final Duration SLACK = Duration.ofMillis(500);

    private static RedissonClient stackedClient(String uri) {
        Config config = new Config();
        var server = config.useSingleServer();
        server.setAddress(uri);
        server.setTimeout(3_000);
        server.setRetryAttempts(3);
        server.setConnectTimeout(3_000);
        return Redisson.create(config);
    }

    static Duration timed(Runnable call) {
        long start = System.nanoTime();
        call.run();
        return Duration.ofNanos(System.nanoTime() - start);
    }

    static Duration timedFailure(Runnable call) {
        long start = System.nanoTime();
        assertThatThrownBy(call::run).isInstanceOf(FenceguardException.class);
        return Duration.ofNanos(System.nanoTime() - start);
    }

    @Test
    void onAFrozenRedisAcquireKeepsItsWaitReleaseItsTimeoutAndALateGrantIsGivenBack() throws Exception {
        try (RedisProcess redis = RedisProcess.start()) {
            RedissonClient client = stackedClient(redis.uri());
            RedisLeaseConfig config = RedisClients.fastRedis().build();
            LeaseManager manager = LeaseManager.of(RedisLeaseProvider.of(RedissonScriptClient.of(client), config),
                    LeaseConfig.builder().leaseTime(Duration.ofSeconds(8)).build());
            Duration callTimeout = config.callTimeout(manager.config().leaseTime());
            try {
                manager.acquire("warm:1", WAIT).close();
                Lease held = manager.acquire("held:1", WAIT);

                long frozenAt = System.nanoTime();
                frozenRedisKeepsEveryTimeout(redis, manager, held, callTimeout, "Redisson");

                // Thawed before the client's own retries end: both queued acquires are executed and granted.
                Thread.sleep(Math.max(0, 500 - (System.nanoTime() - frozenAt) / 1_000_000));
                redis.thaw();
                long thawedAt = System.nanoTime();
                for (String resource : List.of("frozen:1", "frozen:2")) {
                    LeaseKeys keys = LeaseKeys.of(config.keyPrefix(), ResourceName.of(resource));
                    // The token counter exists once the queued acquire ran and granted the lock...
                    awaitTrue(() -> Long.valueOf(1).equals(redis.call("EXISTS", keys.seq())), Duration.ofSeconds(5));
                    // ...and the lock goes long before its lease ends: the late grant was given back.
                    awaitTrue(() -> Long.valueOf(0).equals(redis.call("EXISTS", keys.lock())), Duration.ofSeconds(2));
                }
                System.out.printf("late grants given back %d ms after the thaw (lease %d s)%n",
                        (System.nanoTime() - thawedAt) / 1_000_000, manager.config().leaseTime().toSeconds());

                long recoveredIn = awaitAcquire(manager, "after:1");
                System.out.printf("first acquire after the thaw: %d ms%n", recoveredIn);
                assertThat(Duration.ofMillis(recoveredIn)).isLessThan(Duration.ofMillis(2_500));
            } finally {
                redis.thaw();
                manager.close();
                client.shutdown();
            }
        }
    }

    @Test
    void onADeadRedisEveryAcquireKeepsItsWaitAndRecoveryTakesUnderTwoSeconds() throws Exception {
        try (RedisProcess redis = RedisProcess.start()) {
            RedissonClient client = stackedClient(redis.uri());
            try {
                RedisLeaseConfig config = RedisClients.fastRedis().build();
                deadRedisKeepsEveryWait(redis, RedisLeaseProvider.of(RedissonScriptClient.of(client), config), config, "Redisson");
            } finally {
                client.shutdown();
            }
        }
    }

    /**
     * With Redis killed, six acquires each give up within their wait plus one call timeout; after a restart the
     * first acquire succeeds within 2.5 s. Closes the provider's manager, not the provider's client.
     */
    static void deadRedisKeepsEveryWait(RedisProcess redis, RedisLeaseProvider provider, RedisLeaseConfig config,
                                        String client) throws Exception {
        LeaseManager manager = LeaseManager.of(provider, LeaseConfig.builder().leaseTime(Duration.ofSeconds(4)).build());
        Duration callTimeout = config.callTimeout(manager.config().leaseTime());
        try {
            manager.acquire("warm:1", WAIT).close();
            redis.kill();
            StringBuilder times = new StringBuilder();
            for (int i = 0; i < 6; i++) {
                int n = i;
                Duration took = timedFailure(() -> manager.acquire("dead:" + n, WAIT));
                times.append(took.toMillis()).append(' ');
                assertThat(took).isLessThan(WAIT.plus(callTimeout).plus(SLACK));
            }
            System.out.printf("dead Redis (%s): six acquires (wait %d ms) gave up after [%s] ms; breaker %s%n",
                    client, WAIT.toMillis(), times.toString().trim(), provider.circuitBreaker().getState());

            redis.restart();
            long recoveredIn = awaitAcquire(manager, "after:1");
            System.out.printf("first acquire after the restart (%s): %d ms%n", client, recoveredIn);
            assertThat(Duration.ofMillis(recoveredIn)).isLessThan(Duration.ofMillis(2_500));
        } finally {
            manager.close();
        }
    }

    /**
     * Renewals on a link that turned slow: each confirmation comes 0.6 lease after its renewal was sent, and
     * the lease must be kept (the arithmetic allows a round trip up to lease − interval − drift; with a renewal
     * every 0.2 lease that leaves the proxy and a loaded machine 0.2 lease). A waiting acquire on that link
     * keeps its wait within one call.
     */
    @Test
    void aLeaseSurvivesAnAddedRoundTripOf0_6Lease() throws Exception {
        // Seconds rather than milliseconds: the margin (0.2 lease) must outlast a loaded machine's scheduling.
        Duration lease = Duration.ofMillis(3000);
        Duration roundTrip = Duration.ofMillis(1800);
        try (RedisProcess redis = RedisProcess.start(); DelayProxy link = DelayProxy.start(redis.port())) {
            RedissonClient client = stackedClient(link.uri());
            RedisLeaseConfig config = RedisClients.fastRedis().callTimeout(Duration.ofSeconds(4)).build();
            RedisLeaseProvider provider = RedisLeaseProvider.of(RedissonScriptClient.of(client), config);
            LeaseConfig leases = LeaseConfig.builder().leaseTime(lease).renewInterval(Duration.ofMillis(600)).build();
            LeaseManager manager = LeaseManager.of(provider, leases);
            LeaseManager other = LeaseManager.of(provider, leases);
            try {
                manager.acquire("warm:1", WAIT).close();
                Lease held = manager.acquire("slow:1", WAIT);
                List<LeaseLossReason> lost = new CopyOnWriteArrayList<>();
                held.onLost((l, reason) -> lost.add(reason));
                // One renewal on the fast link first: the client's first use of a script costs it a second round trip.
                Thread.sleep(1400);
                link.addRoundTrip(roundTrip);
                String lock = LeaseKeys.of(config.keyPrefix(), ResourceName.of("slow:1")).lock();
                long minRemaining = Long.MAX_VALUE;
                Duration hold = lease.multipliedBy(4);
                long end = System.nanoTime() + hold.toNanos();
                while (System.nanoTime() < end) {
                    assertThat(held.isValid()).as("valid on the slow link, lost: " + lost).isTrue();
                    minRemaining = Math.min(minRemaining, held.remaining().toMillis());
                    assertThat((Long) redis.call("PTTL", lock)).as("still in Redis").isPositive();
                    Thread.sleep(20);
                }
                assertThat(lost).isEmpty();

                Duration wait = Duration.ofSeconds(3);
                Duration waited = timedFailure(() -> other.acquire("slow:1", wait)); // held: times out
                long closeStart = System.nanoTime();
                held.close();
                long closeMs = (System.nanoTime() - closeStart) / 1_000_000;
                System.out.printf("round trip +%d ms on a %d ms lease renewed every %d ms: held %d ms, least "
                        + "remaining seen %d ms, losses %s; acquire(wait %d ms) of the held resource gave up after %d ms; "
                        + "release %d ms%n", roundTrip.toMillis(), lease.toMillis(), leases.renewInterval().toMillis(),
                        hold.toMillis(), minRemaining, lost,
                        wait.toMillis(), waited.toMillis(), closeMs);
                assertThat(waited).isLessThan(wait.plus(config.callTimeout(lease)).plus(SLACK));
            } finally {
                manager.close();
                other.close();
                client.shutdown();
            }
        }
    }

    /**
     * Freezes Redis (SIGSTOP); then an acquire of {@code frozen:1} gives up within its wait plus one call timeout,
     * a tryAcquire of {@code frozen:2} and the release of {@code held} within one call timeout.
     */
    static void frozenRedisKeepsEveryTimeout(RedisProcess redis, LeaseManager manager, Lease held, Duration callTimeout,
                                             String client) {
        redis.freeze();
        Duration acquire = timedFailure(() -> manager.acquire("frozen:1", WAIT));
        Duration tryAcquire = timedFailure(() -> manager.tryAcquire("frozen:2"));
        Duration release = timed(held::close);
        System.out.printf("frozen Redis (%s): acquire(wait %d ms) gave up after %d ms, tryAcquire after %d ms, "
                + "release after %d ms (call timeout %d ms)%n", client, WAIT.toMillis(), acquire.toMillis(),
                tryAcquire.toMillis(), release.toMillis(), callTimeout.toMillis());
        assertThat(acquire).isLessThan(WAIT.plus(callTimeout).plus(SLACK));
        assertThat(tryAcquire).isLessThan(callTimeout.plus(SLACK));
        assertThat(release).isLessThan(callTimeout.plus(SLACK));
    }

    static long awaitAcquire(LeaseManager manager, String resource) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + Duration.ofSeconds(20).toNanos();
        while (true) {
            try (Lease lease = manager.acquire(resource, Duration.ZERO)) {
                return (System.nanoTime() - start) / 1_000_000;
            } catch (LeaseUnavailableException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }

    static void awaitTrue(Supplier<Boolean> condition, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.get()) {
            assertThat(System.nanoTime()).as("condition within " + within).isLessThan(deadline);
            Thread.sleep(20);
        }
    }
}
