package io.fenceguard.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.redis.springdata.SpringDataRedisScriptClient;
import io.fenceguard.test.support.TestServers;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** The Redis provider on a Spring Data Redis LettuceConnectionFactory passes the contract every provider passes. */
class LettuceLeaseProviderContractTest extends RedisProviderContract {

    @RegisterExtension
    static final ClassResource<LettuceConnectionFactory> factory = SpringDataFactories.lettuceOnTestRedisPerClass();

    @Override
    protected RedisScriptClient scriptClient() {
        return SpringDataRedisScriptClient.of(factory.get());
    }

    @Test
    void describesTheLettucePath() {
        try (LeaseProvider provider = createProvider()) {
            assertThat(provider.describe()).contains("via Spring Data Redis (Lettuce)");
        }
    }

    /** Waiters sleep on the release channel and wake on the release, not when the holder's 30 s are up. */
    @Test
    void waitersWakeOnTheRelease() throws Exception {
        assertWaitersWakeOnTheRelease(3);
    }

    /**
     * A closed provider closes the pub/sub connection its release wake-ups opened, and leaves the factory's shared
     * connection open and working: providers opened and closed one after another leave no subscriber behind.
     */
    @Test
    void aClosedProviderClosesItsSubscriberAndLeavesTheFactoryOpen() throws Exception {
        String name = "fg-close-" + UUID.randomUUID().toString().substring(0, 8);
        LettuceConnectionFactory own = SpringDataFactories.lettuce(TestServers.redis().host(), TestServers.redis().port(), name);
        try {
            assertClosedProvidersLeaveNoSubscription(4, () -> SpringDataRedisScriptClient.of(own),
                    () -> subscribers(own, name), "subscribers left", i -> {
                        try (RedisConnection connection = own.getConnection()) {
                            assertThat(connection.ping()).as("the factory after provider " + i + " was closed")
                                    .isEqualTo("PONG");
                        }
                    });
        } finally {
            SpringDataFactories.shutdown(own);
        }
    }

    /** Connections named {@code name} in Redis's CLIENT LIST that are subscribed to a channel. */
    private static long subscribers(LettuceConnectionFactory on, String name) {
        try (RedisConnection connection = on.getConnection()) {
            return connection.serverCommands().getClientList().stream()
                    .filter(c -> name.equals(c.getName()))
                    .filter(c -> !"0".equals(c.get("sub")))
                    .count();
        }
    }
}
