package io.fenceguard.redis;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.testsupport.TestServers;
import io.fenceguard.testsupport.contract.LeaseProviderContract;
import io.fenceguard.testsupport.contract.ReadWriteLeaseProviderContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.redisson.api.RedissonClient;

/** The fair read-write provider passes the contract of every provider and the read-write one, on the test Redis. */
class RedisReadWriteLeaseProviderTest {

    private static RedissonClient client;

    @BeforeAll
    static void connect() {
        client = RedisClients.single(TestServers.redis().uri());
    }

    @AfterAll
    static void disconnect() {
        client.shutdown();
    }

    @Nested
    class Exclusive extends LeaseProviderContract {
        private RedisLeaseConfig config;

        @Override
        protected LeaseProvider createProvider() {
            if (config == null) {
                config = RedisClients.fastRedis().build();
            }
            return RedisReadWriteLeaseProvider.of(RedissonScriptClient.of(client), config);
        }
    }

    @Nested
    class ReadWrite extends ReadWriteLeaseProviderContract {
        @Override
        protected LeaseProvider createProvider() {
            return RedisReadWriteLeaseProvider.of(RedissonScriptClient.of(client), RedisClients.fastRedis().build());
        }
    }
}
