package io.fenceguard.docs.stores;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.redlock.RedlockLeaseConfig;
import io.fenceguard.redlock.RedlockLeaseProvider;
import java.time.Duration;
import java.util.List;
import org.redisson.api.RedissonClient;

/** Compiled only: Redlock needs independent masters (its own tests start them). */
final class RedlockSample {

    static long redlock(RedissonClient redissonA, RedissonClient redissonB, RedissonClient redissonC) {
        // tag::redlock[]
        // three (or five) independent masters: not replicas of one another, not shards of one Cluster
        List<RedissonClient> masters = List.of(redissonA, redissonB, redissonC);       // the application's clients
        LeaseManager guard = LeaseManager.of(RedlockLeaseProvider.of(masters,
                RedlockLeaseConfig.builder().masterTimeout(Duration.ofMillis(100)).build()));
        try (Lease lease = guard.acquire("account:42", Duration.ofSeconds(5))) {
            return lease.token().value();
        }
        // end::redlock[]
    }

    private RedlockSample() {
    }
}
