package io.fenceguard.redis;

import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.redis.springdata.SpringDataRedisScriptClient;
import io.fenceguard.testsupport.TestServers;
import io.fenceguard.testsupport.contract.LeaseProviderContract;
import io.fenceguard.testsupport.contract.ReadWriteLeaseProviderContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** The fair read-write provider on a Spring Data Redis LettuceConnectionFactory passes both contracts. */
class LettuceReadWriteLeaseProviderTest {

    private static LettuceConnectionFactory factory;

    @BeforeAll
    static void connect() {
        factory = SpringDataFactories.lettuce(TestServers.redis().host(), TestServers.redis().port());
        SpringDataFactories.warmUp(factory);
    }

    @AfterAll
    static void disconnect() {
        SpringDataFactories.shutdown(factory);
    }

    @Nested
    class Exclusive extends LeaseProviderContract {
        private RedisLeaseConfig config;

        @Override
        protected LeaseProvider createProvider() {
            if (config == null) {
                config = RedisClients.fastRedis().build();
            }
            return RedisReadWriteLeaseProvider.of(SpringDataRedisScriptClient.of(factory), config);
        }
    }

    @Nested
    class ReadWrite extends ReadWriteLeaseProviderContract {
        @Override
        protected LeaseProvider createProvider() {
            return RedisReadWriteLeaseProvider.of(SpringDataRedisScriptClient.of(factory), RedisClients.fastRedis().build());
        }
    }
}
