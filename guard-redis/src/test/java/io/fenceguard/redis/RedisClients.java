package io.fenceguard.core;

import java.util.List;
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

    /** A fast lease setup for tests: short lease and lock-delay, unique key prefix per test. */
    static LeaseConfig.Builder fast() {
        return LeaseConfig.builder()
                .leaseTime(java.time.Duration.ofSeconds(2))
                .lockDelay(java.time.Duration.ofMillis(500))
                .keyPrefix("fgtest-" + java.util.UUID.randomUUID().toString().substring(0, 8) + ":");
    }
}
