package io.fenceguard.redis;

import io.fenceguard.core.LeaseManager;
import io.fenceguard.redis.springdata.SpringDataRedisScriptClient;
import io.fenceguard.test.support.TestServers;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Spring Data Redis connection factories for tests, as an application would build them, started. */
final class SpringDataFactories {

    private SpringDataFactories() {
    }

    /** Lettuce with Spring Data's defaults (a shared native connection, 60 s command timeout). */
    static LettuceConnectionFactory lettuce(String host, int port) {
        return lettuce(host, port, LettuceClientConfiguration.defaultConfiguration());
    }

    /**
     * Lettuce on the test Redis with Spring Data's defaults, warmed up ({@link #warmUp}), opened for the tests of one
     * class (register it with {@code @RegisterExtension}).
     */
    static ClassResource<LettuceConnectionFactory> lettuceOnTestRedisPerClass() {
        return ClassResource.of(() -> {
            LettuceConnectionFactory factory = lettuce(TestServers.redis().host(), TestServers.redis().port());
            warmUp(factory);
            return factory;
        }, SpringDataFactories::shutdown);
    }

    /** Jedis on the test Redis with Spring Data's defaults, opened for the tests of one class. */
    static ClassResource<JedisConnectionFactory> jedisOnTestRedisPerClass() {
        return ClassResource.of(() -> {
            JedisConnectionFactory factory = new JedisConnectionFactory(
                    new RedisStandaloneConfiguration(TestServers.redis().host(), TestServers.redis().port()));
            factory.afterPropertiesSet();
            factory.start();
            return factory;
        }, JedisConnectionFactory::destroy);
    }

    /** With {@code clientName}, so that a test finds the factory's connections in CLIENT LIST. */
    static LettuceConnectionFactory lettuce(String host, int port, String clientName) {
        return lettuce(host, port, LettuceClientConfiguration.builder().clientName(clientName).build());
    }

    /**
     * With client resources whose reconnect back-off stays under 500 ms (Lettuce's default grows to 30 s): how long
     * the application's client takes to find a restarted server is its own setting. Shut down with
     * {@link #shutdown(LettuceConnectionFactory)}.
     */
    static LettuceConnectionFactory lettuceQuickReconnect(String host, int port) {
        ClientResources resources = ClientResources.builder()
                .reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofMillis(500), 2, TimeUnit.MILLISECONDS))
                .build();
        return lettuce(host, port, LettuceClientConfiguration.builder().clientResources(resources).build());
    }

    private static LettuceConnectionFactory lettuce(String host, int port, LettuceClientConfiguration client) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port), client);
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }

    /**
     * One lease taken and given back with time to spare, as an application's first requests would: Lettuce's first
     * connection and the JVM's first run of the client's classes take seconds on a loaded machine, which a test of
     * one call's bound must not measure.
     */
    static void warmUp(LettuceConnectionFactory factory) {
        try (RedisLeaseProvider provider = RedisLeaseProvider.of(SpringDataRedisScriptClient.of(factory),
                RedisClients.fastRedis().build());
             LeaseManager manager = LeaseManager.of(provider)) {
            manager.acquire("warm-up", Duration.ofSeconds(20)).close();
        }
    }

    /** Destroys the factory and the client resources the test gave it. */
    static void shutdown(LettuceConnectionFactory factory) {
        factory.destroy();
        factory.getClientConfiguration().getClientResources().ifPresent(ClientResources::shutdown);
    }
}
