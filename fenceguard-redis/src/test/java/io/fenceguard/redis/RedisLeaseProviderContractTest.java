package io.fenceguard.redis;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.core.Lease;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.redis.internal.LeaseKeys;
import io.fenceguard.testsupport.TestServers;
import io.fenceguard.testsupport.contract.LeaseProviderContract;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.redisson.api.RedissonClient;

/** The Redis provider passes the contract every provider passes, on the test Redis. */
class RedisLeaseProviderContractTest extends LeaseProviderContract {

    private static final Duration LOCK_DELAY = Duration.ofMillis(300);

    private static RedissonClient client;
    private RedisLeaseConfig config;

    @BeforeAll
    static void connect() {
        client = RedisClients.single(TestServers.redis().uri());
    }

    @AfterAll
    static void disconnect() {
        client.shutdown();
    }

    @Override
    protected LeaseProvider createProvider() {
        if (config == null) { // one key prefix per test: a second provider of the test shares the first one's keys
            config = RedisClients.fastRedis().lockDelay(LOCK_DELAY).build();
        }
        return RedisLeaseProvider.of(RedissonScriptClient.of(client), config);
    }

    /** An expired holder's resource stays closed for the lock-delay after its lock is gone. */
    @Override
    protected Duration expiryWait() {
        return shortLease().plus(LOCK_DELAY).multipliedBy(5);
    }

    /** The lock key vanishes as it does when it expires; the lock-delay marker stays, as it would. */
    @Override
    protected boolean forget(ResourceName resource, Lease lease) {
        return client.getKeys().delete(LeaseKeys.of(config.keyPrefix(), resource).lock()) == 1;
    }
}
