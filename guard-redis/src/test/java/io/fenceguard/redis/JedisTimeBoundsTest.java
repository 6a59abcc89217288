package io.fenceguard.redis;

import io.fenceguard.redis.jedis.JedisScriptClient;
import io.fenceguard.test.support.RedisProcess;
import java.net.URI;
import java.time.Duration;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;

/**
 * The time bounds of {@link TimeBoundsTest} with leases through a Jedis pool, whose calls run on the caller's
 * thread: a frozen (SIGSTOP) or dead redis-server of the test's own costs each call its wait or timeout, never the
 * pool's own socket timeouts; a request that Redis runs after its acquire gave up (on a connection the client had
 * closed) never leaves a lock behind.
 */
class JedisTimeBoundsTest extends ClientTimeBounds {

    /** A pool with long socket and connect timeouts of its own (5 s), which a lease call must not inherit. */
    @Override
    protected Opened open(RedisProcess redis) {
        JedisPoolConfig config = new JedisPoolConfig();
        config.setMaxTotal(16);
        JedisPool pool = new JedisPool(config, URI.create(redis.uri()), 5_000);
        return new Opened(JedisScriptClient.of(pool), pool::close);
    }

    @Override
    protected String clientName() {
        return "Jedis";
    }

    @Override
    protected Duration firstAcquireWait() {
        return Duration.ofSeconds(1);
    }

    /** A request on a connection the client closed may never run. */
    @Override
    protected boolean queuedAcquiresRunAfterTheThaw() {
        return false;
    }
}
