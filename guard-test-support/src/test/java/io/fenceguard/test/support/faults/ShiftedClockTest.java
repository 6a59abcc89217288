package io.fenceguard.test.support.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.test.support.RedisProcess;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A redis-server under the shim: TIME and key expiry follow the steps, while the server runs. */
class ShiftedClockTest {

    @BeforeAll
    static void shimAvailable() {
        ClockShim.assumeAvailable();
    }

    @Test
    void redisTimeMovesByTheStepForwardAndBack() {
        try (ShiftedClock clock = ShiftedClock.create(); RedisProcess redis = RedisProcess.start(clock)) {
            long before = redisMicros(redis);
            assertThat(Math.abs(before / 1000 - System.currentTimeMillis())).as("offset zero at start").isLessThan(2_000);

            clock.shiftBy(Duration.ofSeconds(20));
            long forward = redisMicros(redis);
            assertThat(forward - before).as("µs after +20 s").isBetween(20_000_000L, 22_000_000L);

            clock.shiftBy(Duration.ofSeconds(-50));
            long back = redisMicros(redis);
            assertThat(back - forward).as("µs after -50 s").isBetween(-50_000_000L, -48_000_000L);
            assertThat(clock.offset()).isEqualTo(Duration.ofSeconds(-30));
        }
    }

    @Test
    void keyExpiryFollowsTheServerClock() {
        try (ShiftedClock clock = ShiftedClock.create(); RedisProcess redis = RedisProcess.start(clock)) {
            redis.call("SET", "forward", "v", "PX", "60000");
            clock.shiftBy(Duration.ofSeconds(61));
            assertThat(redis.call("GET", "forward")).as("a 60 s key after a +61 s step").isNull();

            redis.call("SET", "back", "v", "PX", "60000");
            clock.shiftBy(Duration.ofSeconds(-120));
            assertThat((Long) redis.call("PTTL", "back")).as("a 60 s key after a -120 s step lives on")
                    .isGreaterThan(170_000L);
        }
    }

    @Test
    void anOffsetSetBeforeStartHoldsFromTheFirstCall() {
        try (ShiftedClock clock = ShiftedClock.create().set(Duration.ofHours(-1));
             RedisProcess redis = RedisProcess.start(clock)) {
            long lag = System.currentTimeMillis() * 1000 - redisMicros(redis);
            assertThat(lag).as("µs behind the real clock").isBetween(3_598_000_000L, 3_602_000_000L);
        }
    }

    @SuppressWarnings("unchecked")
    private static long redisMicros(RedisProcess redis) {
        List<Object> time = (List<Object>) redis.call("TIME");
        return Long.parseLong((String) time.get(0)) * 1_000_000L + Long.parseLong((String) time.get(1));
    }
}
