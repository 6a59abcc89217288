package io.fenceguard.redis;

import static io.fenceguard.redis.TimeBoundsTest.awaitAcquire;
import static io.fenceguard.redis.TimeBoundsTest.awaitTrue;
import static io.fenceguard.redis.TimeBoundsTest.deadRedisKeepsEveryWait;
import static io.fenceguard.redis.TimeBoundsTest.frozenRedisKeepsEveryTimeout;
import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import io.fenceguard.redis.internal.LeaseKeys;
import io.fenceguard.test.support.RedisProcess;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The time bounds of {@link TimeBoundsTest} with leases through a client whose own timeouts a lease call must not
 * inherit, on a redis-server of the test's own: frozen (SIGSTOP) or dead, it costs each call its wait or timeout; a
 * request that Redis runs after its acquire gave up never leaves a lock behind. A subclass gives the client.
 */
abstract class ClientTimeBounds {

    private static final Duration WAIT = Duration.ofSeconds(1);

    /** A script client and what closes what it opened. */
    record Opened(RedisScriptClient client, Runnable close) {
    }

    /** The client under test on {@code redis}, configured as an application would. */
    protected abstract Opened open(RedisProcess redis);

    /** The client's name in what the tests print. */
    protected abstract String clientName();

    /** The wait of a fresh client's first acquire: its first connection is not the bound tested. */
    protected abstract Duration firstAcquireWait();

    /**
     * Whether the acquires sent to the frozen server run once it thaws (the client kept them queued), rather than
     * maybe not at all (the client closed their connection).
     */
    protected abstract boolean queuedAcquiresRunAfterTheThaw();

    @Test
    void onAFrozenRedisCallsKeepTheirTimeAndARequestRunLateLeavesNoLock() throws Exception {
        try (RedisProcess redis = RedisProcess.start()) {
            Opened opened = open(redis);
            RedisLeaseConfig config = RedisClients.fastRedis().build();
            RedisLeaseProvider provider = RedisLeaseProvider.of(opened.client(), config);
            LeaseManager manager = LeaseManager.of(provider, LeaseConfig.builder().leaseTime(Duration.ofSeconds(8)).build());
            Duration callTimeout = config.callTimeout(manager.config().leaseTime());
            try {
                manager.acquire("warm:1", firstAcquireWait()).close();
                manager.acquire("warm:2", WAIT).close();
                Lease held = manager.acquire("held:1", WAIT);

                frozenRedisKeepsEveryTimeout(redis, manager, held, callTimeout, clientName());

                Thread.sleep(300);
                redis.thaw();
                long thawedAt = System.nanoTime();
                for (String resource : List.of("frozen:1", "frozen:2")) {
                    LeaseKeys keys = LeaseKeys.of(config.keyPrefix(), ResourceName.of(resource));
                    if (queuedAcquiresRunAfterTheThaw()) {
                        // The queued acquire ran once Redis was back (its token counter is there)...
                        awaitTrue(() -> Long.valueOf(1).equals(redis.call("EXISTS", keys.seq())), Duration.ofSeconds(5));
                    }
                    // ...and whether Redis ran it before or after the give-up mark, whether it granted the lock or
                    // found its holder given up, no lock is left...
                    awaitTrue(() -> Long.valueOf(0).equals(redis.call("EXISTS", keys.lock())), Duration.ofSeconds(3));
                }
                // ...and it stays so: a request still queued finds its holder given up.
                Thread.sleep(500);
                for (String resource : List.of("frozen:1", "frozen:2")) {
                    LeaseKeys keys = LeaseKeys.of(config.keyPrefix(), ResourceName.of(resource));
                    assertThat(redis.call("EXISTS", keys.lock())).as(resource + " lock after the thaw").isEqualTo(0L);
                }
                System.out.printf("no lock left %d ms after the thaw (lease %d s)%n",
                        (System.nanoTime() - thawedAt) / 1_000_000, manager.config().leaseTime().toSeconds());
                long recoveredIn = awaitAcquire(manager, "after:1");
                System.out.printf("first acquire after the thaw (%s): %d ms%n", clientName(), recoveredIn);
                assertThat(Duration.ofMillis(recoveredIn)).isLessThan(Duration.ofMillis(2_500));
                try (Lease again = manager.acquire("frozen:1", WAIT)) {
                    assertThat(again.isValid()).as("the resource of the given-up acquire is free for others").isTrue();
                }
            } finally {
                redis.thaw();
                manager.close();
                provider.close();
                opened.close().run();
            }
        }
    }

    @Test
    void onADeadRedisEveryAcquireKeepsItsWaitAndRecoveryTakesUnderTwoSeconds() throws Exception {
        try (RedisProcess redis = RedisProcess.start()) {
            Opened opened = open(redis);
            RedisLeaseConfig config = RedisClients.fastRedis().build();
            RedisLeaseProvider provider = RedisLeaseProvider.of(opened.client(), config);
            try {
                try (LeaseManager warm = LeaseManager.of(provider)) {
                    warm.acquire("warm:0", firstAcquireWait()).close();
                }
                deadRedisKeepsEveryWait(redis, provider, config, clientName());
            } finally {
                provider.close();
                opened.close().run();
            }
        }
    }
}
