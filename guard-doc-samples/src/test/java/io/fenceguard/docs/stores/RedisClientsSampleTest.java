package io.fenceguard.docs.stores;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.redis.JdbcTokenEpochSource;
import io.fenceguard.redis.RedisLeaseConfig;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.redis.jedis.JedisScriptClient;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.docs.SampleDatabase;
import io.fenceguard.test.support.TestRedisson;
import io.fenceguard.test.support.TestServers;
import java.net.URI;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import redis.clients.jedis.JedisPool;

/** The Redis samples of the lock-store guide, each taking a lease on the test Redis. */
class RedisClientsSampleTest {

    private static final String RESOURCE = "docs:" + UUID.randomUUID();

    static LeaseManager redisson(RedissonClient redisson) {
        // tag::redisson-lease-manager[]
        LeaseManager guard = LeaseManager.of(                                   // the application's RedissonClient
                RedisLeaseProvider.of(RedissonScriptClient.of(redisson), RedisLeaseConfig.builder()
                        .lockDelay(Duration.ofSeconds(5)).build()),
                LeaseConfig.builder().leaseTime(Duration.ofSeconds(30)).build());
        // end::redisson-lease-manager[]
        return guard;
    }

    static LeaseManager jedis(String redisUri) {
        // tag::jedis-lease-manager[]
        JedisPool pool = new JedisPool(URI.create(redisUri));                   // the application's pool
        LeaseManager guard = LeaseManager.of(RedisLeaseProvider.of(JedisScriptClient.of(pool), RedisLeaseConfig.defaults()));
        // end::jedis-lease-manager[]
        return guard;
    }

    static RedisLeaseProvider durableEpoch(RedissonClient redisson, DataSource dataSource) {
        // tag::durable-epoch[]
        RedisLeaseProvider provider = RedisLeaseProvider.of(RedissonScriptClient.of(redisson), RedisLeaseConfig.builder()
                .tokenEpochSource(JdbcTokenEpochSource.of(dataSource))   // sequence fenceguard_token_epoch, created on first use
                .build());
        // end::durable-epoch[]
        return provider;
    }

    @Test
    void onRedisson() {
        LeaseManager guard = redisson(TestRedisson.shared());
        try (guard; Lease lease = guard.acquire(RESOURCE + ":redisson", Duration.ofSeconds(5))) {
            assertThat(lease.token().value()).isPositive();
        } finally {
            guard.provider().close();
        }
    }

    @Test
    void onJedis() {
        LeaseManager guard = jedis(TestServers.redis().uri());
        try (guard; Lease lease = guard.acquire(RESOURCE + ":jedis", Duration.ofSeconds(5))) {
            assertThat(lease.token().value()).isPositive();
        } finally {
            guard.provider().close();
        }
    }

    /**
     * On a redis-server of its own: Redis records which epoch source its keys serve, and the sample's key prefix is
     * the default one, which the other samples use on the shared test Redis with the clock floor.
     */
    @Test
    void onADurableEpoch() throws Exception {
        try (io.fenceguard.test.support.RedisProcess own = io.fenceguard.test.support.RedisProcess.start()) {
            org.redisson.config.Config config = new org.redisson.config.Config();
            config.useSingleServer().setAddress(own.uri());
            RedissonClient redisson = org.redisson.Redisson.create(config);
            try (SampleDatabase db = SampleDatabase.create();
                 RedisLeaseProvider provider = durableEpoch(redisson, db.pool());
                 LeaseManager guard = LeaseManager.of(provider);
                 Lease lease = guard.acquire(RESOURCE + ":epoch", Duration.ofSeconds(5))) {
                // epoch × 2^24 + n: the first grant of a resource takes an epoch from the sequence
                long epoch = db.queryLong("SELECT last_value FROM fenceguard_token_epoch");
                assertThat(lease.token().value() >> 24).isEqualTo(epoch);
            } finally {
                redisson.shutdown();
            }
        }
    }
}
