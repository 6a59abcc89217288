package io.fenceguard.docs.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.test.support.faults.ClockShim;
import io.fenceguard.test.support.RedisProcess;
import io.fenceguard.test.support.faults.ShiftedClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/** The clock-step sample of the test tooling: the Redis server's TIME goes back 20 s. */
class ClockStepSampleTest {

    @Test
    void theRedisClockGoesBack() throws Exception {
        long before;
        long after;
        // tag::clock-step[]
        ClockShim.assumeAvailable();
        try (ShiftedClock clock = ShiftedClock.create(); RedisProcess redis = RedisProcess.start(clock)) {
            before = serverSeconds(redis);
            clock.shiftBy(Duration.ofSeconds(-20));   // Redis TIME, key expiry and Lua's TIME go back 20 s at once
            after = serverSeconds(redis);
        }
        // end::clock-step[]
        assertThat(before - after).isBetween(15L, 25L);
    }

    private static long serverSeconds(RedisProcess redis) {
        try (Jedis jedis = new Jedis("127.0.0.1", redis.port())) {
            return Long.parseLong(jedis.time().get(0));
        }
    }
}
