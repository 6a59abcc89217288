package io.fenceguard.redis;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.test.support.TestServers;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** Redisson clients for tests, with short timeouts so that a dead server fails a call quickly. */
final class RedisClients {

    private RedisClients() {
    }

    static RedissonClient single(String uri) {
        Config config = new Config();
        var server = config.useSingleServer();
        server.setAddress(uri);
        server.setTimeout(1_000);
        server.setRetryAttempts(0);
        server.setConnectTimeout(1_000);
        server.setConnectionMinimumIdleSize(2);
        server.setConnectionPoolSize(16);
        return Redisson.create(config);
    }

    /** A client on the test Redis, opened for the tests of one class (register it with {@code @RegisterExtension}). */
    static ClassResource<RedissonClient> onTestRedisPerClass() {
        return ClassResource.of(() -> single(TestServers.redis().uri()), RedissonClient::shutdown);
    }

    static RedissonClient cluster(List<String> uris) {
        Config config = new Config();
        var cluster = config.useClusterServers();
        cluster.setNodeAddresses(uris);
        cluster.setScanInterval(500);
        cluster.setTimeout(1_000);
        cluster.setRetryAttempts(2);
        cluster.setConnectTimeout(1_000);
        return Redisson.create(config);
    }

    static RedissonClient sentinel(String masterName, List<String> sentinels) {
        Config config = new Config();
        var sentinel = config.useSentinelServers();
        sentinel.setMasterName(masterName);
        sentinel.setSentinelAddresses(sentinels);
        sentinel.setCheckSentinelsList(false);
        sentinel.setScanInterval(500);
        sentinel.setTimeout(1_000);
        sentinel.setRetryAttempts(3);
        sentinel.setConnectTimeout(1_000);
        return Redisson.create(config);
    }

    /** Fast Redis settings for tests: a short lock-delay and a key prefix of its own per test. */
    static RedisLeaseConfig.Builder fastRedis() {
        return RedisLeaseConfig.builder()
                .lockDelay(Duration.ofMillis(500))
                .keyPrefix("fgtest-" + UUID.randomUUID().toString().substring(0, 8) + ":");
    }

    /** A short lease for tests. */
    static LeaseConfig.Builder fastLease() {
        return LeaseConfig.builder().leaseTime(Duration.ofSeconds(2));
    }

    /** A manager on its own {@link RedisLeaseProvider} over {@code client}. */
    static LeaseManager manager(RedissonClient client, RedisLeaseConfig redis, LeaseConfig lease) {
        return LeaseManager.of(RedisLeaseProvider.of(RedissonScriptClient.of(client), redis), lease);
    }
}
