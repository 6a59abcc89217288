package io.fenceguard.shedlock;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.redis.RedisLeaseConfig;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.test.support.TestServers;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** The contract on the test Redis: each simulated instance has its own RedisLeaseProvider and manager. */
class RedisLockProviderTest extends LockProviderContract {

    private static RedissonClient client;
    // A prefix per test, so no test sees another's keys; a field because the contract's @BeforeEach uses it.
    private final RedisLeaseConfig redis = RedisLeaseConfig.builder()
            .keyPrefix("fgshed-" + UUID.randomUUID().toString().substring(0, 8) + ":")
            .lockDelay(Duration.ofMillis(300))
            .build();

    @BeforeAll
    static void connect() {
        Config config = new Config();
        config.useSingleServer()
                .setAddress(TestServers.redis().uri())
                .setTimeout(1_000)
                .setConnectTimeout(1_000)
                .setRetryAttempts(0);
        client = Redisson.create(config);
    }

    @AfterAll
    static void disconnect() {
        client.shutdown();
    }

    @Override
    protected LeaseManager newManager() {
        return LeaseManager.of(RedisLeaseProvider.of(RedissonScriptClient.of(client), redis), LEASE);
    }
}
