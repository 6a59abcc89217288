package io.fenceguard.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.test.support.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/** Rule 4: tokens never repeat or go back when Redis forgets everything. */
class DataLossTest {

    private RedisProcess redis;
    private RedissonClient client;
    private RedisLeaseConfig config;
    private LeaseManager manager;

    @BeforeEach
    void start() {
        redis = RedisProcess.start();
        client = RedisClients.single(redis.uri());
        config = RedisClients.fastRedis().attempts(5).build();
        manager = RedisClients.manager(client, config, RedisClients.fastLease().build());
    }

    @AfterEach
    void stop() {
        manager.close();
        client.shutdown();
        redis.close();
    }

    @Test
    void nextTokenIsGreaterAfterFlushAll() {
        List<Long> before = burst("account:1", 200);
        redis.flushAll();
        assertThat(redis.call("DBSIZE")).isEqualTo(0L);
        long after = tokenOnce("account:1");
        assertThat(after).isGreaterThan(before.get(before.size() - 1));
        assertIncreasing(before);
    }

    @Test
    void nextTokenIsGreaterAfterKillAndRestartWithoutPersistence() {
        List<Long> before = burst("account:2", 200);
        redis.restart();
        assertThat(redis.call("DBSIZE")).isEqualTo(0L);
        long after = awaitToken("account:2");
        assertThat(after).isGreaterThan(before.get(before.size() - 1));
    }

    @Test
    void heldLockLostInAFlushDoesNotLetAnOldTokenComeBack() {
        Lease held = manager.acquire("account:3", Duration.ofSeconds(1));
        redis.flushAll();
        try (Lease other = manager.acquire("account:3b", Duration.ofSeconds(1))) {
            assertThat(other.token()).isGreaterThan(held.token());
        }
        // Another holder in another manager, on a provider of its own over the same Redis.
        LeaseManager second = RedisClients.manager(client, config, manager.config());
        try (Lease taken = second.acquire("account:3", Duration.ofSeconds(1))) {
            assertThat(taken.token()).isGreaterThan(held.token());
        } finally {
            second.close();
            held.close();
        }
    }

    private List<Long> burst(String resource, int n) {
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            tokens.add(tokenOnce(resource));
        }
        return tokens;
    }

    private long tokenOnce(String resource) {
        try (Lease lease = manager.acquire(resource, Duration.ofSeconds(1))) {
            return lease.token().value();
        }
    }

    private long awaitToken(String resource) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            try {
                return tokenOnce(resource);
            } catch (LeaseUnavailableException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
        }
    }

    private static void assertIncreasing(List<Long> tokens) {
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).isGreaterThan(tokens.get(i - 1));
        }
    }
}
