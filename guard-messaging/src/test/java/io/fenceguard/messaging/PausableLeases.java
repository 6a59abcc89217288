package io.fenceguard.messaging;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.redis.RedisLeaseConfig;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.test.support.TestRedisson;
import io.fenceguard.test.support.faults.PausableLeaseProvider;
import java.time.Duration;

/**
 * Producers' leases on the test Redis, three seconds long, with renewals that a test can pause to lose a
 * lease: the same for the Kafka and RabbitMQ tests. Long enough that a lease not paused outlives renewals late by
 * two seconds (a loaded parallel build), short enough that a paused one runs out within a test's wait.
 */
public record PausableLeases(PausableLeaseProvider provider, LeaseManager leases) implements AutoCloseable {

    /** How long a lease lives without a renewal. */
    public static final Duration LEASE_TIME = Duration.ofSeconds(3);

    public static PausableLeases onRedis() {
        PausableLeaseProvider provider = PausableLeaseProvider.wrap(RedisLeaseProvider.of(RedissonScriptClient.of(TestRedisson.shared()),
                RedisLeaseConfig.builder().lockDelay(Duration.ofMillis(200)).build()));
        return new PausableLeases(provider, LeaseManager.of(provider,
                LeaseConfig.builder().leaseTime(LEASE_TIME).build()));
    }

    @Override
    public void close() {
        leases.close();
    }
}
