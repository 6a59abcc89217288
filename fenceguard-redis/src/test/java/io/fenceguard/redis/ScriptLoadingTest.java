package io.fenceguard.redis;

import static io.fenceguard.redis.ScriptStats.cached;
import static io.fenceguard.redis.ScriptStats.refusedEvalSha;
import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseRequest;
import io.fenceguard.redis.jedis.JedisScriptClient;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.testsupport.RedisProcess;
import java.time.Duration;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import io.fenceguard.redis.springdata.SpringDataRedisScriptClient;
import org.redisson.api.RedissonClient;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import redis.clients.jedis.JedisPool;

/**
 * On a fresh redis-server, the provider's scripts are in the server's cache once the provider exists, so the first
 * acquire, renewal and release each find theirs: no EVALSHA is refused with NOSCRIPT (which cost a load and a retry,
 * two more round trips, on a first renewal or a give-up mark).
 */
class ScriptLoadingTest {

    private RedisProcess redis;

    @BeforeEach
    void start() {
        redis = RedisProcess.start();
    }

    @AfterEach
    void stop() {
        redis.close();
    }

    @Test
    void redissonLoadsTheScriptsBeforeTheirFirstUse() throws Exception {
        RedissonClient redisson = RedisClients.single(redis.uri());
        try {
            firstUseIsOneRoundTrip(config -> RedisLeaseProvider.of(RedissonScriptClient.of(redisson), config));
        } finally {
            redisson.shutdown();
        }
    }

    @Test
    void jedisLoadsTheScriptsBeforeTheirFirstUse() throws Exception {
        try (JedisPool pool = new JedisPool("127.0.0.1", redis.port())) {
            firstUseIsOneRoundTrip(config -> RedisLeaseProvider.of(JedisScriptClient.of(pool), config));
        }
    }

    @Test
    void springDataLettuceLoadsTheScriptsBeforeTheirFirstUse() throws Exception {
        LettuceConnectionFactory factory = SpringDataFactories.lettuce("127.0.0.1", redis.port());
        try {
            firstUseIsOneRoundTrip(config -> RedisLeaseProvider.of(SpringDataRedisScriptClient.of(factory), config));
        } finally {
            factory.destroy();
        }
    }

    @Test
    void springDataJedisLoadsTheScriptsBeforeTheirFirstUse() throws Exception {
        JedisConnectionFactory factory = new JedisConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", redis.port()));
        factory.afterPropertiesSet();
        factory.start();
        try {
            firstUseIsOneRoundTrip(config -> RedisLeaseProvider.of(SpringDataRedisScriptClient.of(factory), config));
        } finally {
            factory.destroy();
        }
    }

    @Test
    void redissonSendsTheScriptsAgainAfterTheServerForgotThem() throws Exception {
        RedissonClient redisson = RedisClients.single(redis.uri());
        try {
            forgottenScriptsAreSentAgain(config -> RedisLeaseProvider.of(RedissonScriptClient.of(redisson), config));
        } finally {
            redisson.shutdown();
        }
    }

    @Test
    void springDataLettuceSendsTheScriptsAgainAfterTheServerForgotThem() throws Exception {
        LettuceConnectionFactory factory = SpringDataFactories.lettuce("127.0.0.1", redis.port());
        try {
            forgottenScriptsAreSentAgain(config -> RedisLeaseProvider.of(SpringDataRedisScriptClient.of(factory), config));
        } finally {
            factory.destroy();
        }
    }

    /**
     * After SCRIPT FLUSH (a restart, a failover to a replica that never ran them), a call refused with NOSCRIPT is
     * sent again with the script itself.
     */
    private void forgottenScriptsAreSentAgain(Function<RedisLeaseConfig, RedisLeaseProvider> providers) throws Exception {
        RedisLeaseConfig config = RedisClients.fastRedis().build();
        try (RedisLeaseProvider provider = providers.apply(config)) {
            redis.call("SCRIPT", "FLUSH");
            LeaseRequest request = new LeaseRequest(ResourceName.of("scripts:forgotten"), "holder", Duration.ofSeconds(5));
            Grant grant = provider.acquire(request, Duration.ZERO);
            assertThat(provider.renew(request, grant).toCompletableFuture().get()).isTrue();
            assertThat(provider.release(request, grant)).isTrue();
            assertThat(redis.call("EXISTS", config.keyPrefix() + "{scripts:forgotten}:lock")).isEqualTo(0L);
            assertThat(cached(redis)).as("the scripts run since the flush are cached again").contains(1L);
        }
    }

    private void firstUseIsOneRoundTrip(Function<RedisLeaseConfig, RedisLeaseProvider> providers) throws Exception {
        assertThat(cached(redis)).as("a fresh server knows none of the scripts").containsOnly(0L);
        RedisLeaseConfig config = RedisClients.fastRedis().build();
        try (RedisLeaseProvider provider = providers.apply(config)) {
            assertThat(cached(redis)).as("every script loaded by the time the provider exists").containsOnly(1L);
            LeaseRequest request = new LeaseRequest(ResourceName.of("scripts:first-use"), "holder", Duration.ofSeconds(5));
            Grant grant = provider.acquire(request, Duration.ZERO);
            assertThat(provider.renew(request, grant).toCompletableFuture().get()).isTrue();
            assertThat(provider.release(request, grant)).isTrue();
        }
        assertThat(refusedEvalSha(redis)).as("EVALSHA calls refused (NOSCRIPT)").isZero();
    }
}
