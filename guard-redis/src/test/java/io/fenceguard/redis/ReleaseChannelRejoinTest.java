package io.fenceguard.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.redis.jedis.JedisScriptClient;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.redis.springdata.SpringDataRedisScriptClient;
import io.fenceguard.test.support.TestRedisson;
import io.fenceguard.test.support.TestServers;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;

/**
 * A release channel whose last waiter left and which a new waiter takes again at once, as contended waiters of one
 * resource do all the time: the new waiter's subscription, once confirmed, hears the next release. (The Spring Data
 * client counted a channel as subscribed while it was being left: a waiter that came then was told it listened, heard
 * nothing, and slept until the holder's time was up.)
 */
class ReleaseChannelRejoinTest {

    private static final int ROUNDS = 300;

    @Test
    void springDataOnLettuce() throws Exception {
        LettuceConnectionFactory factory = SpringDataFactories.lettuce(TestServers.redis().host(), TestServers.redis().port());
        SpringDataFactories.warmUp(factory);
        try (SpringDataRedisScriptClient client = SpringDataRedisScriptClient.of(factory)) {
            rejoinAndHear(client);
        } finally {
            SpringDataFactories.shutdown(factory);
        }
    }

    @Test
    void jedis() throws Exception {
        try (JedisPool pool = new JedisPool(TestServers.redis().host(), TestServers.redis().port());
             JedisScriptClient client = JedisScriptClient.of(pool)) {
            rejoinAndHear(client);
        }
    }

    @Test
    void redisson() throws Exception {
        try (RedissonScriptClient client = RedissonScriptClient.of(TestRedisson.shared())) {
            rejoinAndHear(client);
        }
    }

    private static void rejoinAndHear(RedisScriptClient client) throws Exception {
        String channel = "fgtest:rejoin:" + UUID.randomUUID();
        try (Jedis publisher = new Jedis(TestServers.redis().host(), TestServers.redis().port())) {
            Semaphore heard = new Semaphore(0);
            RedisScriptClient.Subscription previous = subscribed(client, channel, heard::release);
            for (int round = 0; round < ROUNDS; round++) {
                previous.cancel();  // the last waiter leaves ...
                RedisScriptClient.Subscription next = subscribed(client, channel, heard::release);  // ... another comes
                heard.drainPermits();
                publisher.publish(channel, "released");
                assertThat(heard.tryAcquire(5, TimeUnit.SECONDS))
                        .as("round %d: a release published after the subscription was confirmed is heard", round)
                        .isTrue();
                previous = next;
            }
            previous.cancel();
        }
    }

    private static RedisScriptClient.Subscription subscribed(RedisScriptClient client, String channel, Runnable onMessage)
            throws Exception {
        RedisScriptClient.Subscription subscription = client.subscribe(channel, onMessage);
        subscription.confirmed().toCompletableFuture().get(Duration.ofSeconds(10).toMillis(), TimeUnit.MILLISECONDS);
        return subscription;
    }
}
