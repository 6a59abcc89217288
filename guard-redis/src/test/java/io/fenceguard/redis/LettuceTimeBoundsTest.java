package io.fenceguard.redis;

import io.fenceguard.redis.springdata.SpringDataRedisScriptClient;
import io.fenceguard.test.support.RedisProcess;
import java.time.Duration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The time bounds of {@link TimeBoundsTest} with leases through a Spring Data Redis LettuceConnectionFactory, whose
 * own command timeout (Spring's default, 60 s) a lease call must not inherit: a frozen (SIGSTOP) or dead
 * redis-server of the test's own costs each call its wait or timeout; a request that Redis runs after its acquire
 * gave up never leaves a lock behind.
 */
class LettuceTimeBoundsTest extends ClientTimeBounds {

    @Override
    protected Opened open(RedisProcess redis) {
        LettuceConnectionFactory factory = SpringDataFactories.lettuceQuickReconnect("127.0.0.1", redis.port());
        return new Opened(SpringDataRedisScriptClient.of(factory), () -> SpringDataFactories.shutdown(factory));
    }

    @Override
    protected String clientName() {
        return "Lettuce";
    }

    /** Lettuce's first connection and first calls take seconds on a loaded machine. */
    @Override
    protected Duration firstAcquireWait() {
        return Duration.ofSeconds(20);
    }

    /** The shared connection keeps the requests sent while Redis was frozen and sends them once it is back. */
    @Override
    protected boolean queuedAcquiresRunAfterTheThaw() {
        return true;
    }
}
