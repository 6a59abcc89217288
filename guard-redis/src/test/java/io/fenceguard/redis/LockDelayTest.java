package io.fenceguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.test.support.TestServers;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/** Chubby lock-delay: a lost holder's resource stays closed for a while; a clean release frees it at once. */
class LockDelayTest {

    private static final Duration LEASE = Duration.ofMillis(500);
    private static final Duration DELAY = Duration.ofMillis(1_500);

    private RedissonClient crashingClient;
    private RedissonClient client;
    private RedisLeaseConfig redisConfig;
    private LeaseConfig config;

    @BeforeEach
    void setUp() {
        crashingClient = RedisClients.single(TestServers.redis().uri());
        client = RedisClients.single(TestServers.redis().uri());
        redisConfig = RedisClients.fastRedis().lockDelay(DELAY).build();
        config = LeaseConfig.builder().leaseTime(LEASE).build();
    }

    @AfterEach
    void tearDown() {
        client.shutdown();
    }

    @Test
    void resourceStaysClosedForTheLockDelayAfterAHolderCrashes() throws Exception {
        String resource = "account:" + System.nanoTime();
        LeaseManager crashing = RedisClients.manager(crashingClient, redisConfig, config);
        crashing.acquire(resource, Duration.ofSeconds(1));
        long crashedAt = System.nanoTime();
        crashing.close();              // the process dies: no release, no renewal
        crashingClient.shutdown();

        LeaseManager survivor = RedisClients.manager(client, redisConfig, config);
        Thread.sleep(LEASE.toMillis() + 100);   // the lock itself has expired by now
        assertThat(survivor.tryAcquire(resource)).as("within lock-delay").isEmpty();
        assertThatThrownBy(() -> survivor.acquire(resource, Duration.ofMillis(100)))
                .isInstanceOf(LeaseTimeoutException.class)
                .hasMessageContaining("lock-delay");
        try (Lease lease = survivor.acquire(resource, Duration.ofSeconds(5))) {
            long closedFor = Duration.ofNanos(System.nanoTime() - crashedAt).toMillis();
            assertThat(closedFor).isGreaterThanOrEqualTo(LEASE.plus(DELAY).toMillis() - 50);
            assertThat(lease.isValid()).isTrue();
        }
        survivor.close();
    }

    @Test
    void cleanReleaseFreesTheResourceAtOnce() {
        String resource = "account:" + System.nanoTime();
        LeaseManager first = RedisClients.manager(crashingClient, redisConfig, config);
        LeaseManager second = RedisClients.manager(client, redisConfig, config);
        first.acquire(resource, Duration.ofSeconds(1)).close();
        assertThat(second.tryAcquire(resource)).as("right after a clean release").isPresent();
        first.close();
        second.close();
        crashingClient.shutdown();
    }

    @Test
    void waiterIsWokenByTheReleaseRatherThanTheHoldersTimeout() throws Exception {
        String resource = "account:" + System.nanoTime();
        LeaseConfig longLease = LeaseConfig.builder().leaseTime(Duration.ofSeconds(20)).build();
        LeaseManager holder = RedisClients.manager(crashingClient, redisConfig, longLease);
        LeaseManager waiter = RedisClients.manager(client, redisConfig, longLease);
        Lease held = holder.acquire(resource, Duration.ofSeconds(1));
        Thread releaser = new Thread(() -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
            held.close();
        });
        releaser.start();
        long start = System.nanoTime();
        try (Lease lease = waiter.acquire(resource, Duration.ofSeconds(15))) {
            // Without the release message the waiter would sleep on the 20 s lease.
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
            assertThat(lease.token()).isGreaterThan(held.token());
        }
        releaser.join();
        holder.close();
        waiter.close();
        crashingClient.shutdown();
    }
}
