package io.fenceguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.redis.internal.LeaseKeys;
import io.fenceguard.redis.internal.ReadWriteScripts;
import io.fenceguard.redis.jedis.JedisScriptClient;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.redis.springdata.SpringDataRedisScriptClient;
import io.fenceguard.test.support.RedisProcess;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import redis.clients.jedis.JedisPool;

/**
 * Grants that the replica acknowledged, on a primary and one replica of their own, through every client (Redisson,
 * Jedis, Spring Data Redis on Lettuce and on Jedis) and both Redis lease providers, with the default configuration (one replica
 * where the master has one, {@link RedisLeaseConfig#DEFAULT_REPLICA_TIMEOUT}): with the replica running a grant is on
 * the replica when it is handed out; with the replica frozen (SIGSTOP, its link still up) a grant is refused with
 * {@link UnacknowledgedGrantException} after the replica timeout and within the call's time, and given back; once the
 * replica runs again, grants are handed out again.
 */
class ReplicaAcknowledgementClientsTest {

    private static final LeaseConfig LEASE = LeaseConfig.builder().leaseTime(Duration.ofSeconds(10)).build();
    /** Longer than the replica timeout, so that a refusal is the replica's answer, not the call's timeout. */
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(2);

    private static RedisProcess primary;
    private static RedisProcess replica;

    @BeforeAll
    static void start() {
        primary = RedisProcess.start();
        replica = RedisProcess.start("--replicaof", "127.0.0.1", String.valueOf(primary.port()));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!String.valueOf(replica.call("INFO", "replication")).contains("master_link_status:up")) {
            assertThat(System.nanoTime() < deadline).as("replica linked within 30 s").isTrue();
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    @AfterAll
    static void stop() {
        if (replica != null) {
            replica.close();
        }
        if (primary != null) {
            primary.close();
        }
    }

    @Test
    void redisson() {
        RedissonClient redisson = RedisClients.single(primary.uri());
        try {
            both(config -> RedisLeaseProvider.of(RedissonScriptClient.of(redisson), config),
                    config -> RedisReadWriteLeaseProvider.of(RedissonScriptClient.of(redisson), config));
        } finally {
            redisson.shutdown();
        }
    }

    @Test
    void jedis() {
        try (JedisPool pool = new JedisPool("127.0.0.1", primary.port())) {
            both(config -> RedisLeaseProvider.of(JedisScriptClient.of(pool), config),
                    config -> RedisReadWriteLeaseProvider.of(JedisScriptClient.of(pool), config));
        }
    }

    @Test
    void springDataLettuce() {
        LettuceConnectionFactory factory = SpringDataFactories.lettuce("127.0.0.1", primary.port());
        try {
            both(config -> RedisLeaseProvider.of(SpringDataRedisScriptClient.of(factory), config),
                    config -> RedisReadWriteLeaseProvider.of(SpringDataRedisScriptClient.of(factory), config));
        } finally {
            factory.destroy();
        }
    }

    @Test
    void springDataJedis() {
        JedisConnectionFactory factory = new JedisConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", primary.port()));
        factory.afterPropertiesSet();
        factory.start();
        try {
            both(config -> RedisLeaseProvider.of(SpringDataRedisScriptClient.of(factory), config),
                    config -> RedisReadWriteLeaseProvider.of(SpringDataRedisScriptClient.of(factory), config));
        } finally {
            factory.destroy();
        }
    }

    private void both(Function<RedisLeaseConfig, LeaseProvider> exclusive,
                      Function<RedisLeaseConfig, LeaseProvider> readWrite) {
        RedisLeaseConfig config = RedisClients.fastRedis().callTimeout(CALL_TIMEOUT).build();
        assertThat(config.replicaAcknowledgements()).as("the default: left to the provider").isEqualTo(-1);
        run(exclusive.apply(config), resource -> {
            LeaseKeys keys = LeaseKeys.of(config.keyPrefix(), ResourceName.of(resource));
            return List.of(String.valueOf(replica.call("HGET", keys.lock(), "token")));
        }, resource -> (Long) primary.call("EXISTS", LeaseKeys.of(config.keyPrefix(), ResourceName.of(resource)).lock()));
        run(readWrite.apply(config), resource -> holders(replica, config, resource),
                resource -> (Long) primary.call("HLEN", ReadWriteScripts.Keys.of(config.keyPrefix(),
                        ResourceName.of(resource)).holders()));
    }

    private static List<String> holders(RedisProcess server, RedisLeaseConfig config, String resource) {
        Object values = server.call("HVALS", ReadWriteScripts.Keys.of(config.keyPrefix(), ResourceName.of(resource)).holders());
        return ((List<?>) values).stream().map(v -> String.valueOf(v).substring(2)).toList();
    }

    /**
     * A grant with the replica running: up to three tries, since a replica starved of CPU (parallel builds) has
     * answered after the default replica timeout; each refused try gave its grant back.
     */
    private static Lease acknowledged(LeaseManager manager, String resource) {
        for (int attempt = 1; ; attempt++) {
            try {
                return manager.acquire(resource, Duration.ofSeconds(5));
            } catch (UnacknowledgedGrantException e) {
                if (attempt == 3) {
                    throw e;
                }
                System.out.printf("%s: not acknowledged in time on try %d, trying again%n", resource, attempt);
            }
        }
    }

    /**
     * @param onReplica the tokens the replica holds for a resource
     * @param onPrimary how many locks the primary holds for a resource
     */
    private void run(LeaseProvider provider, Function<String, List<String>> onReplica, Function<String, Long> onPrimary) {
        try (LeaseManager manager = LeaseManager.of(provider, LEASE)) {
            try (Lease granted = acknowledged(manager, "ledger:granted")) {
                assertThat(onReplica.apply("ledger:granted")).as("the grant is on the replica when handed out")
                        .containsExactly(granted.token().toString());
            }

            replica.freeze();
            long started;
            long elapsed;
            try {
                started = System.nanoTime();
                assertThatThrownBy(() -> manager.acquire("ledger:refused", Duration.ofSeconds(5)))
                        .isInstanceOfSatisfying(UnacknowledgedGrantException.class, e -> {
                            assertThat(e.acknowledged()).isZero();
                            assertThat(e.required()).isEqualTo(1);
                            assertThat(e.replicaTimeout()).isEqualTo(RedisLeaseConfig.DEFAULT_REPLICA_TIMEOUT);
                            assertThat(e.resource()).isEqualTo(ResourceName.of("ledger:refused"));
                        });
                elapsed = System.nanoTime() - started;
                assertThat(onPrimary.apply("ledger:refused")).as("the refused grant was given back").isZero();
            } finally {
                replica.thaw();
            }
            System.out.printf("%s: refused after %d ms (replica timeout %d ms, call timeout %d ms)%n",
                    provider.describe(), TimeUnit.NANOSECONDS.toMillis(elapsed),
                    RedisLeaseConfig.DEFAULT_REPLICA_TIMEOUT.toMillis(), CALL_TIMEOUT.toMillis());
            assertThat(elapsed).as("waited for the replica's answer")
                    .isGreaterThanOrEqualTo(RedisLeaseConfig.DEFAULT_REPLICA_TIMEOUT.toNanos());
            assertThat(elapsed).as("refused within the call's time").isLessThan(CALL_TIMEOUT.toNanos());

            try (Lease again = acknowledged(manager, "ledger:refused")) {
                assertThat(onReplica.apply("ledger:refused")).as("granted again once the replica answers")
                        .containsExactly(again.token().toString());
            }
        }
    }
}
