package io.fenceguard.redis;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

/** The fair read-write provider passes the contract of every provider and the read-write one, on the test Redis. */
class RedisReadWriteLeaseProviderTest {

    @RegisterExtension
    static final ClassResource<RedissonClient> client = RedisClients.onTestRedisPerClass();

    @Nested
    class Exclusive extends ReadWriteProviderContracts.Exclusive {
        @Override
        protected RedisScriptClient scriptClient() {
            return RedissonScriptClient.of(client.get());
        }
    }

    @Nested
    class ReadWrite extends ReadWriteProviderContracts.ReadWrite {
        @Override
        protected RedisScriptClient scriptClient() {
            return RedissonScriptClient.of(client.get());
        }
    }
}
