package io.fenceguard.redis;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

/** The Redis provider passes the contract every provider passes, on the test Redis. */
class RedisLeaseProviderContractTest extends RedisProviderContract {

    @RegisterExtension
    static final ClassResource<RedissonClient> client = RedisClients.onTestRedisPerClass();

    @Override
    protected RedisScriptClient scriptClient() {
        return RedissonScriptClient.of(client.get());
    }
}
