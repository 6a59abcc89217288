package io.fenceguard.redis;

import io.fenceguard.core.Lease;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.redis.internal.LeaseKeys;
import io.fenceguard.testsupport.TestServers;
import io.fenceguard.testsupport.contract.LeaseProviderContract;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;

/** The Redis provider on a Jedis pool passes the contract every provider passes, on the test Redis. */
class JedisLeaseProviderContractTest extends LeaseProviderContract {

    private static final Duration LOCK_DELAY = Duration.ofMillis(300);

    private static JedisPool pool;
    private RedisLeaseConfig config;

    @BeforeAll
    static void connect() {
        pool = new JedisPool(URI.create(TestServers.redis().uri()));
    }

    @AfterAll
    static void disconnect() {
        pool.close();
    }

    @Override
    protected LeaseProvider createProvider() {
        if (config == null) { // one key prefix per test: a second provider of the test shares the first one's keys
            config = RedisClients.fastRedis().lockDelay(LOCK_DELAY).build();
        }
        return RedisLeaseProvider.of(pool, config);
    }

    @Override
    protected Duration expiryWait() {
        return shortLease().plus(LOCK_DELAY).multipliedBy(5);
    }

    @Override
    protected boolean forget(ResourceName resource, Lease lease) {
        try (Jedis jedis = pool.getResource()) {
            return jedis.del(LeaseKeys.of(config.keyPrefix(), resource).lock()) == 1;
        }
    }
}
