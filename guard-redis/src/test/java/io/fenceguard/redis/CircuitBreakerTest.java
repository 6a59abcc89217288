package io.fenceguard.redis;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.test.support.RedisProcess;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/** A Redis outage opens the breaker; callers then get a clear exception at once instead of hanging. */
class CircuitBreakerTest {

    @Test
    void outageOpensTheBreakerAndCallersFailFastUntilRedisIsBack() throws Exception {
        try (RedisProcess redis = RedisProcess.start()) {
            RedissonClient client = RedisClients.single(redis.uri());
            RedisLeaseConfig config = RedisClients.fastRedis()
                    .attempts(2)
                    .backoff(Duration.ofMillis(20))
                    .slidingWindowSize(4)
                    .openStateDuration(Duration.ofSeconds(2))
                    .build();
            RedisLeaseProvider provider = RedisLeaseProvider.of(RedissonScriptClient.of(client), config);
            LeaseManager manager = LeaseManager.of(provider, RedisClients.fastLease().build());
            manager.acquire("account:1", Duration.ofSeconds(1)).close();

            redis.kill();
            // Until the breaker opens, each call fails after Redisson's 1 s timeout (x2 attempts).
            int failedSlowly = 0;
            while (provider.circuitBreaker().getState() != CircuitBreaker.State.OPEN && failedSlowly < 10) {
                assertThatThrownBy(() -> manager.acquire("account:1", Duration.ofSeconds(1)))
                        .isInstanceOf(LeaseUnavailableException.class)
                        .hasMessageContaining("account:1")
                        .hasMessageContaining("Redis failed");
                failedSlowly++;
            }
            assertThat(provider.circuitBreaker().getState()).isEqualTo(CircuitBreaker.State.OPEN);

            // Open: the exception comes without touching Redis, so well within the configured timeout.
            LeaseUnavailableException fast = assertTimeoutPreemptively(Duration.ofMillis(900), () ->
                    org.junit.jupiter.api.Assertions.assertThrows(LeaseUnavailableException.class,
                            () -> manager.acquire("account:2", Duration.ofSeconds(5))));
            assertThat(fast).hasMessageContaining("account:2").hasMessageContaining("circuit breaker")
                    .hasCauseInstanceOf(CallNotPermittedException.class);
            assertThat(fast.resource()).isEqualTo(ResourceName.of("account:2"));

            redis.restart();
            Thread.sleep(config.openStateDuration().toMillis() + 200);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            Lease lease = null;
            while (lease == null) {
                try {
                    lease = manager.acquire("account:3", Duration.ofSeconds(1));
                } catch (LeaseUnavailableException e) {
                    if (System.nanoTime() > deadline) {
                        throw e;
                    }
                    Thread.sleep(200);
                }
            }
            assertThat(lease.isValid()).isTrue();
            lease.close();
            manager.close();
            client.shutdown();
        }
    }
}
