package io.fenceguard.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.test.support.RedisProcess;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/** Rule 5: an idle resource leaves no key behind, and its next token is still greater. */
class KeyExpiryTest {

    @Test
    void everyKeyOfAResourceExpiresAndTokensStillGrow() throws Exception {
        try (RedisProcess redis = RedisProcess.start()) {
            RedissonClient client = RedisClients.single(redis.uri());
            RedisLeaseConfig config = RedisClients.fastRedis()
                    .lockDelay(Duration.ofMillis(200))
                    .tokenIdleTtl(Duration.ofMillis(100))   // raised to lease + delay + 1 s = 3.2 s
                    .build();
            // Long enough that a renewal held up on a loaded machine does not cost the lease.
            LeaseConfig leaseConfig = LeaseConfig.builder().leaseTime(Duration.ofMillis(2000)).build();
            LeaseManager manager = RedisClients.manager(client, config, leaseConfig);
            try (Lease held = manager.acquire("busy:1", Duration.ofSeconds(1))) {
                String seq = config.keyPrefix() + "{busy:1}:seq";
                assertThat((Long) redis.call("PTTL", seq)).as("sequence TTL raised above the configured 100 ms")
                        .isBetween(2_400L, 3_200L);
                // Held and renewed for longer than the sequence's own TTL: renewal keeps it.
                Thread.sleep(4_500);
                assertThat(held.isValid()).isTrue();
                assertThat(redis.call("GET", seq)).isEqualTo(held.token().toString());
            }
            redis.call("DEL", config.keyPrefix() + "{busy:1}:seq");
            long first;
            try (Lease lease = manager.acquire("idle:1", Duration.ofSeconds(1))) {
                first = lease.token().value();
                for (Object key : (List<?>) redis.call("KEYS", "*")) {
                    assertThat((Long) redis.call("PTTL", String.valueOf(key))).as("ttl of %s", key).isPositive();
                }
            }
            List<?> afterRelease = (List<?>) redis.call("KEYS", "*");
            assertThat(afterRelease).hasSize(1);   // only the token sequence stays for a while
            assertThat((Long) redis.call("PTTL", String.valueOf(afterRelease.get(0)))).isPositive();

            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (redis.call("DBSIZE").equals(1L) && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(redis.call("DBSIZE")).isEqualTo(0L);
            try (Lease lease = manager.acquire("idle:1", Duration.ofSeconds(1))) {
                assertThat(lease.token().value()).isGreaterThan(first);
            }
            manager.close();
            client.shutdown();
        }
    }
}
