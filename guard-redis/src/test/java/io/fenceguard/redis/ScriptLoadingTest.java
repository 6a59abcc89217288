package io.fenceguard.redis;

import static io.fenceguard.redis.ScriptStats.cached;
import static io.fenceguard.redis.ScriptStats.refusedEvalSha;
import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseRequest;
import io.fenceguard.redis.jedis.JedisScriptClient;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.test.support.RedisProcess;
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

    /**
     * The call timeout, which is also how long a provider waits for its scripts to load: a client's first connection
     * under a parallel build took more than the default second, and a script then went out before its load.
     */
    private static final Duration LOAD_WAIT = Duration.ofSeconds(10);

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

    @Test
    void readWriteLeasesLoadTheirScriptsBeforeTheirFirstUse() throws Exception {
        RedissonClient redisson = RedisClients.single(redis.uri());
        try (io.fenceguard.core.LeaseManager manager = io.fenceguard.core.LeaseManager.of(
                RedisReadWriteLeaseProvider.of(RedissonScriptClient.of(redisson),
                        RedisClients.fastRedis().callTimeout(LOAD_WAIT).build()))) {
            try (io.fenceguard.core.Lease read = manager.acquireShared("scripts:rw", Duration.ofSeconds(5))) {
                assertThat(read.token()).isNotNull();
            }
            try (io.fenceguard.core.Lease write = manager.acquire("scripts:rw", Duration.ofSeconds(5))) {
                assertThat(write.token()).isNotNull();
            }
        } finally {
            redisson.shutdown();
        }
        assertThat(refusedEvalSha(redis)).as("EVALSHA calls refused (NOSCRIPT)").isZero();
    }

    @Test
    void theHighWaterStoreLoadsItsScriptsBeforeTheirFirstUse() throws Exception {
        RedissonClient redisson = RedisClients.single(redis.uri());
        try {
            RedisHighWaterStore store = RedisHighWaterStore.of(RedissonScriptClient.of(redisson), "fgtest:first:");
            java.time.Instant expires = java.time.Instant.now().plusSeconds(60);
            io.fenceguard.core.Fence fence = new io.fenceguard.core.Fence(ResourceName.of("acct:first"),
                    io.fenceguard.core.FencingToken.of(System.currentTimeMillis() * 1000 + 10_000_000));
            assertThat(store.admit(fence).outcome()).isNotNull();
            assertThat(store.admit(fence, "k1:first-nonce-0001", expires)).isPresent();
            assertThat(store.admitEach(fence, java.util.List.of(
                    new io.fenceguard.admission.SignedAdmissionStore.Nonce("k1:first-nonce-0002", expires)))).hasSize(1);
            assertThat(store.admitAll(java.util.List.of(fence))).hasSize(1);
            assertThat(store.admitClaiming(fence, new io.fenceguard.admission.SignedAdmissionStore.Nonce(
                    "k1:first-nonce-0003", expires), "key-1", "fingerprint").claim()).isNotNull();
            store.complete(fence.resource(), "key-1",
                    new io.fenceguard.admission.IdempotencyStore.RecordedResponse(200, null, new byte[0]));
            assertThat(store.claim(fence, "key-2", "fingerprint")).isNotNull();
            store.abandon(fence.resource(), "key-2");
            assertThat(store.reset(fence.resource(), fence.token(), fence.token())).isTrue();
        } finally {
            redisson.shutdown();
        }
        assertThat(refusedEvalSha(redis)).as("EVALSHA calls refused (NOSCRIPT)").isZero();
    }

    /**
     * After SCRIPT FLUSH (a restart, a failover to a replica that never ran them), a call refused with NOSCRIPT is
     * sent again with the script itself.
     */
    private void forgottenScriptsAreSentAgain(Function<RedisLeaseConfig, RedisLeaseProvider> providers) throws Exception {
        RedisLeaseConfig config = RedisClients.fastRedis().callTimeout(LOAD_WAIT).build();
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
        RedisLeaseConfig config = RedisClients.fastRedis().callTimeout(LOAD_WAIT).build();
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
