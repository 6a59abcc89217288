package io.fenceguard.redis;

import io.fenceguard.redis.jedis.JedisScriptClient;
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
import io.fenceguard.testsupport.RedisProcess;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;

/**
 * The time bounds of {@link TimeBoundsTest} with leases through a Jedis pool, whose calls run on the caller's
 * thread: a frozen (SIGSTOP) or dead redis-server of the test's own costs each call its wait or timeout, never the
 * pool's own socket timeouts; a request that Redis runs after its acquire gave up (on a connection the client had
 * closed) never leaves a lock behind.
 */
class JedisTimeBoundsTest {

    private static final Duration WAIT = Duration.ofSeconds(1);

    /** A pool with long socket and connect timeouts of its own (5 s), which a lease call must not inherit. */
    private static JedisPool pool(String uri) {
        JedisPoolConfig config = new JedisPoolConfig();
        config.setMaxTotal(16);
        return new JedisPool(config, URI.create(uri), 5_000);
    }

    @Test
    void onAFrozenRedisCallsKeepTheirTimeAndARequestRunLateLeavesNoLock() throws Exception {
        try (RedisProcess redis = RedisProcess.start(); JedisPool pool = pool(redis.uri())) {
            RedisLeaseConfig config = RedisClients.fastRedis().build();
            LeaseManager manager = LeaseManager.of(RedisLeaseProvider.of(JedisScriptClient.of(pool), config),
                    LeaseConfig.builder().leaseTime(Duration.ofSeconds(8)).build());
            Duration callTimeout = config.callTimeout(manager.config().leaseTime());
            try {
                manager.acquire("warm:1", WAIT).close();
                manager.acquire("warm:2", WAIT).close();
                Lease held = manager.acquire("held:1", WAIT);

                frozenRedisKeepsEveryTimeout(redis, manager, held, callTimeout, "Jedis");

                Thread.sleep(300);
                redis.thaw();
                long thawedAt = System.nanoTime();
                for (String resource : List.of("frozen:1", "frozen:2")) {
                    LeaseKeys keys = LeaseKeys.of(config.keyPrefix(), ResourceName.of(resource));
                    // Whether Redis ran the request before or after the give-up mark, no lock is left...
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
                System.out.printf("first acquire after the thaw (Jedis): %d ms%n", recoveredIn);
                assertThat(Duration.ofMillis(recoveredIn)).isLessThan(Duration.ofMillis(2_500));
                try (Lease again = manager.acquire("frozen:1", WAIT)) {
                    assertThat(again.isValid()).as("the resource of the given-up acquire is free for others").isTrue();
                }
            } finally {
                redis.thaw();
                manager.close();
            }
        }
    }

    @Test
    void onADeadRedisEveryAcquireKeepsItsWaitAndRecoveryTakesUnderTwoSeconds() throws Exception {
        try (RedisProcess redis = RedisProcess.start(); JedisPool pool = pool(redis.uri())) {
            RedisLeaseConfig config = RedisClients.fastRedis().build();
            deadRedisKeepsEveryWait(redis, RedisLeaseProvider.of(JedisScriptClient.of(pool), config), config, "Jedis");
        }
    }
}
