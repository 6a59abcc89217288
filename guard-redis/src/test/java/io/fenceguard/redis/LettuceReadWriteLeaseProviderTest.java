package io.fenceguard.redis;

import io.fenceguard.redis.springdata.SpringDataRedisScriptClient;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** The fair read-write provider on a Spring Data Redis LettuceConnectionFactory passes both contracts. */
class LettuceReadWriteLeaseProviderTest {

    @RegisterExtension
    static final ClassResource<LettuceConnectionFactory> factory = SpringDataFactories.lettuceOnTestRedisPerClass();

    @Nested
    class Exclusive extends ReadWriteProviderContracts.Exclusive {
        @Override
        protected RedisScriptClient scriptClient() {
            return SpringDataRedisScriptClient.of(factory.get());
        }
    }

    @Nested
    class ReadWrite extends ReadWriteProviderContracts.ReadWrite {
        @Override
        protected RedisScriptClient scriptClient() {
            return SpringDataRedisScriptClient.of(factory.get());
        }
    }
}
