package io.fenceguard.redis;

import static io.fenceguard.redis.ScriptStats.commandCalls;
import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import io.fenceguard.redis.internal.LeaseKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Renewal traffic stays flat in the number of held leases: the watchdog renews every lease due in one
 * beat with one script call per node, counted by the server's own {@code INFO commandstats} on a
 * redis-server of this test's own; a lease whose lock is gone is still told apart from the others.
 */
class RenewalBatchingTest {

    private static final Duration LEASE = Duration.ofMillis(3_000);
    private static final Duration INTERVAL = Duration.ofMillis(1_000);
    private static final LeaseConfig RENEWED = LeaseConfig.builder().leaseTime(LEASE).renewInterval(INTERVAL).build();

    @RegisterExtension
    static final OwnRedisServer redis = new OwnRedisServer();

    @Test
    void thousandHeldLeasesCostAFewRenewalCallsPerInterval() throws Exception {
        RedisLeaseConfig config = RedisClients.fastRedis().build();
        try (LeaseManager manager = RedisClients.manager(redis.client(), config, RENEWED)) {
            List<Lease> held = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                held.add(manager.acquire("batch:" + i, Duration.ofSeconds(5)));
            }
            redis.call("CONFIG", "RESETSTAT");
            long start = System.nanoTime();
            int intervals = 5;
            Thread.sleep(intervals * INTERVAL.toMillis());
            double elapsedIntervals = (System.nanoTime() - start) / (double) INTERVAL.toNanos();
            long calls = scriptCalls();
            double perInterval = calls / elapsedIntervals;
            System.out.printf("1,000 held leases: %d renewal script calls in %.1f intervals = %.1f per interval%n",
                    calls, elapsedIntervals, perInterval);
            // Five intervals spanned more than a lease time: without a renewal each lock would have expired.
            assertThat(held).allSatisfy(l -> assertThat(l.isValid()).isTrue());
            LeaseKeys keys = LeaseKeys.of(config.keyPrefix(), ResourceName.of("batch:999"));
            assertThat((Long) redis.call("PTTL", keys.lock())).isGreaterThan(0L);
            assertThat(calls).as("renewal calls for 1,000 leases in %.1f intervals", elapsedIntervals).isGreaterThan(0);
            assertThat(perInterval).as("renewal calls per interval").isLessThanOrEqualTo(10.0);
            held.forEach(Lease::close);
        }
    }

    @Test
    void aLockGoneAmongManyLosesOnlyItsOwnLease() throws Exception {
        RedisLeaseConfig config = RedisClients.fastRedis().build();
        try (LeaseManager manager = RedisClients.manager(redis.client(), config, RENEWED)) {
            List<Lease> held = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                held.add(manager.acquire("among:" + i, Duration.ofSeconds(5)));
            }
            Lease victim = held.get(137);
            CompletableFuture<LeaseLossReason> lost = new CompletableFuture<>();
            victim.onLost((l, reason) -> lost.complete(reason));
            // Another holder's lock now stands where the victim's was: its next renewal is refused.
            LeaseKeys keys = LeaseKeys.of(config.keyPrefix(), ResourceName.of("among:137"));
            redis.call("DEL", keys.lock());
            redis.call("HSET", keys.lock(), "holder", "someone-else", "token", "1");
            assertThat(lost.get(5, TimeUnit.SECONDS)).isEqualTo(LeaseLossReason.RENEWAL_REJECTED);
            Thread.sleep(2 * LEASE.toMillis());
            assertThat(victim.isValid()).isFalse();
            for (int i = 0; i < held.size(); i++) {
                if (i != 137) {
                    assertThat(held.get(i).isValid()).as("lease %d", i).isTrue();
                }
            }
            assertThat(redis.call("HGET", keys.lock(), "holder")).as("the other holder's lock is untouched")
                    .isEqualTo("someone-else");
            held.forEach(Lease::close);
        }
    }

    /** Script calls (EVAL and EVALSHA) the server ran since the last reset. */
    private static long scriptCalls() {
        return commandCalls(redis.server(), "eval") + commandCalls(redis.server(), "evalsha");
    }
}
