package io.fenceguard.messaging;

import io.fenceguard.admission.TokenBound;
import io.fenceguard.redis.RedisHighWaterStore;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.test.support.TestRedisson;
import java.time.Clock;
import java.time.Duration;

/** A new Redis high-water store on the test Redis, for leases taken after it starts. */
public final class FreshHighWaterStore {

    private FreshHighWaterStore() {
    }

    /**
     * A store under {@code prefix} whose floor is this machine's clock when it starts. A new store refuses
     * tokens up to its floor (by default the clock plus 5 s of allowed skew, since it cannot tell a new store
     * from one that lost its marks); the tests' leases come from Redis on this machine, after the store starts.
     */
    public static RedisHighWaterStore on(String prefix) {
        return RedisHighWaterStore.of(RedissonScriptClient.of(TestRedisson.shared()), prefix, TokenBound.clockFloor(Clock.systemUTC(), Duration.ZERO));
    }
}
