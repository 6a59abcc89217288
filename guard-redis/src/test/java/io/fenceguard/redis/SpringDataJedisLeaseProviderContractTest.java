package io.fenceguard.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.redis.springdata.SpringDataRedisScriptClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

/**
 * The Redis provider on a Spring Data Redis JedisConnectionFactory, the generic path (scripts through the factory's
 * blocking connections on the client's threads, release channels on a subscribed connection read by a thread of its
 * own), passes the contract every provider passes.
 */
class SpringDataJedisLeaseProviderContractTest extends RedisProviderContract {

    @RegisterExtension
    static final ClassResource<JedisConnectionFactory> factory = SpringDataFactories.jedisOnTestRedisPerClass();

    @Override
    protected RedisScriptClient scriptClient() {
        return SpringDataRedisScriptClient.of(factory.get());
    }

    @Test
    void describesTheFactory() {
        try (LeaseProvider provider = createProvider()) {
            assertThat(provider.describe()).contains("via Spring Data Redis (Jedis)");
        }
    }

    /** Waiters sleep on the release channel (a blocking subscription) and wake on the release, not at expiry. */
    @Test
    void waitersWakeOnTheRelease() throws Exception {
        assertWaitersWakeOnTheRelease(2);
    }
}
