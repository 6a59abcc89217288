package io.fenceguard.redis;

import io.fenceguard.redis.jedis.JedisScriptClient;
import io.fenceguard.test.support.TestServers;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;

/** The Redis provider on a Jedis pool passes the contract every provider passes, on the test Redis. */
class JedisLeaseProviderContractTest extends RedisProviderContract {

    @RegisterExtension
    static final ClassResource<JedisPool> pool = ClassResource.of(
            () -> new JedisPool(URI.create(TestServers.redis().uri())), JedisPool::close);

    @Override
    protected RedisScriptClient scriptClient() {
        return JedisScriptClient.of(pool.get());
    }

    /** Waiters sleep on the release channel (one subscribed connection) and wake on the release, not at expiry. */
    @Test
    void waitersWakeOnTheReleaseOverTheSubscribedConnection() throws Exception {
        assertWaitersWakeOnTheRelease(3);
    }

    /**
     * A closed provider gives the pool back the connection its release wake-ups kept subscribed (and stops its
     * threads): providers opened and closed one after another on a pool of three never drain it.
     */
    @Test
    void aClosedProviderGivesItsSubscribedConnectionBack() throws Exception {
        JedisPoolConfig three = new JedisPoolConfig();
        three.setMaxTotal(3);
        three.setMaxWait(Duration.ofSeconds(2));
        try (JedisPool own = new JedisPool(three, URI.create(TestServers.redis().uri()))) {
            assertClosedProvidersLeaveNoSubscription(6, () -> JedisScriptClient.of(own), own::getNumActive,
                    "connections still out", i -> { });
        }
    }
}
