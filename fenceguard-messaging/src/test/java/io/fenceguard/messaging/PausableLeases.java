package io.fenceguard.messaging;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.redis.RedisLeaseConfig;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.testsupport.TestRedisson;
import io.fenceguard.testsupport.faults.PausableLeaseProvider;
import java.time.Duration;

/**
 * Producers' leases on the test Redis, one second long, with renewals that a test can pause to lose a
 * lease: the same for the Kafka and RabbitMQ tests.
 */
public record PausableLeases(PausableLeaseProvider provider, LeaseManager leases) implements AutoCloseable {

    public static PausableLeases onRedis() {
        PausableLeaseProvider provider = PausableLeaseProvider.wrap(RedisLeaseProvider.of(RedissonScriptClient.of(TestRedisson.shared()),
                RedisLeaseConfig.builder().lockDelay(Duration.ofMillis(200)).build()));
        return new PausableLeases(provider, LeaseManager.of(provider,
                LeaseConfig.builder().leaseTime(Duration.ofSeconds(1)).build()));
    }

    @Override
    public void close() {
        leases.close();
    }
}
