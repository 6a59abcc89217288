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
import io.fenceguard.redis.springdata.SpringDataRedisScriptClient;
import io.fenceguard.testsupport.RedisProcess;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The time bounds of {@link TimeBoundsTest} with leases through a Spring Data Redis LettuceConnectionFactory, whose
 * own command timeout (Spring's default, 60 s) a lease call must not inherit: a frozen (SIGSTOP) or dead
 * redis-server of the test's own costs each call its wait or timeout; a request that Redis runs after its acquire
 * gave up never leaves a lock behind.
 */
class LettuceTimeBoundsTest {

    private static final Duration WAIT = Duration.ofSeconds(1);

    @Test
    void onAFrozenRedisCallsKeepTheirTimeAndARequestRunLateLeavesNoLock() throws Exception {
        try (RedisProcess redis = RedisProcess.start()) {
            LettuceConnectionFactory factory = SpringDataFactories.lettuceQuickReconnect("127.0.0.1", redis.port());
            RedisLeaseConfig config = RedisClients.fastRedis().build();
            RedisLeaseProvider provider = RedisLeaseProvider.of(SpringDataRedisScriptClient.of(factory), config);
            LeaseManager manager = LeaseManager.of(provider, LeaseConfig.builder().leaseTime(Duration.ofSeconds(8)).build());
            Duration callTimeout = config.callTimeout(manager.config().leaseTime());
            try {
                manager.acquire("warm:1", Duration.ofSeconds(20)).close();
                manager.acquire("warm:2", WAIT).close();
                Lease held = manager.acquire("held:1", WAIT);

                frozenRedisKeepsEveryTimeout(redis, manager, held, callTimeout, "Lettuce");

                Thread.sleep(300);
                redis.thaw();
                long thawedAt = System.nanoTime();
                for (String resource : List.of("frozen:1", "frozen:2")) {
                    LeaseKeys keys = LeaseKeys.of(config.keyPrefix(), ResourceName.of(resource));
                    // The queued acquire ran once Redis was back (its token counter is there)...
                    awaitTrue(() -> Long.valueOf(1).equals(redis.call("EXISTS", keys.seq())), Duration.ofSeconds(5));
                    // ...and whether it granted the lock or found its holder given up, no lock is left.
                    awaitTrue(() -> Long.valueOf(0).equals(redis.call("EXISTS", keys.lock())), Duration.ofSeconds(3));
                }
                Thread.sleep(500);
                for (String resource : List.of("frozen:1", "frozen:2")) {
                    LeaseKeys keys = LeaseKeys.of(config.keyPrefix(), ResourceName.of(resource));
                    assertThat(redis.call("EXISTS", keys.lock())).as(resource + " lock after the thaw").isEqualTo(0L);
                }
                System.out.printf("no lock left %d ms after the thaw (lease %d s)%n",
                        (System.nanoTime() - thawedAt) / 1_000_000, manager.config().leaseTime().toSeconds());
                long recoveredIn = awaitAcquire(manager, "after:1");
                System.out.printf("first acquire after the thaw (Lettuce): %d ms%n", recoveredIn);
                assertThat(Duration.ofMillis(recoveredIn)).isLessThan(Duration.ofMillis(2_500));
                try (Lease again = manager.acquire("frozen:1", WAIT)) {
                    assertThat(again.isValid()).as("the resource of the given-up acquire is free for others").isTrue();
                }
            } finally {
                redis.thaw();
                manager.close();
                provider.close();
                SpringDataFactories.shutdown(factory);
            }
        }
    }

    @Test
    void onADeadRedisEveryAcquireKeepsItsWaitAndRecoveryTakesUnderTwoSeconds() throws Exception {
        try (RedisProcess redis = RedisProcess.start()) {
            LettuceConnectionFactory factory = SpringDataFactories.lettuceQuickReconnect("127.0.0.1", redis.port());
            RedisLeaseConfig config = RedisClients.fastRedis().build();
            RedisLeaseProvider provider = RedisLeaseProvider.of(SpringDataRedisScriptClient.of(factory), config);
            try {
                // Lettuce's first connection and first calls take seconds on a loaded machine: not the bound tested.
                try (LeaseManager warm = LeaseManager.of(provider)) {
                    warm.acquire("warm:0", Duration.ofSeconds(20)).close();
                }
                deadRedisKeepsEveryWait(redis, provider, config, "Lettuce");
            } finally {
                provider.close();
                SpringDataFactories.shutdown(factory);
            }
        }
    }
}
