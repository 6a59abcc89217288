package io.fenceguard.redis;

import static io.fenceguard.redis.SentinelFaults.onTheMasterAloneThenKillIt;
import static io.fenceguard.redis.SentinelFaults.retrying;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.redis.internal.LeaseKeys;
import io.fenceguard.redis.jedis.JedisScriptClient;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.test.support.RedisProcess;
import io.fenceguard.test.support.RedisSentinelGroup;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import io.fenceguard.redis.springdata.SpringDataRedisScriptClient;
import org.redisson.api.RedissonClient;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import redis.clients.jedis.JedisSentinelPool;

/**
 * Grants that a replica acknowledged, on a Sentinel group, through Redisson, Jedis and Spring Data Redis on
 * Lettuce: the provider finds the replica by itself; a grant is on the replica before it is handed out; with the
 * replica cut off a grant is refused (and given back); after the master dies right after the grants and the
 * replica is promoted, no lock granted before is granted again. Without acknowledgements, the same failover grants
 * a lock twice.
 */
class ReplicaAcknowledgementTest {

    private static final LeaseConfig LEASE = LeaseConfig.builder().leaseTime(Duration.ofSeconds(20)).build();
    /**
     * The unacknowledged holder's lease: no renewal falls within the failover (a slow one on a loaded machine took
     * longer than a third of {@link #LEASE}), so the second grant is shown while the first holder still holds its lease.
     */
    private static final LeaseConfig UNRENEWED_DURING_FAILOVER = LeaseConfig.builder().leaseTime(Duration.ofSeconds(90))
            .renewInterval(Duration.ofSeconds(60)).build();

    @Test
    void redissonGrantsOnlyWhatAReplicaAcknowledged() {
        try (RedisSentinelGroup group = RedisSentinelGroup.start()) {
            RedissonClient redisson = RedisClients.sentinel(RedisSentinelGroup.MASTER_NAME, group.sentinelUris());
            try {
                run(group, () -> RedissonScriptClient.of(redisson));
            } finally {
                redisson.shutdown();
            }
        }
    }

    @Test
    void jedisGrantsOnlyWhatAReplicaAcknowledged() {
        try (RedisSentinelGroup group = RedisSentinelGroup.start()) {
            Set<String> sentinels = group.sentinelUris().stream()
                    .map(uri -> URI.create(uri).getHost() + ":" + URI.create(uri).getPort()).collect(Collectors.toSet());
            try (JedisSentinelPool pool = new JedisSentinelPool(RedisSentinelGroup.MASTER_NAME, sentinels)) {
                run(group, () -> JedisScriptClient.of(pool));
            }
        }
    }

    @Test
    void springDataLettuceGrantsOnlyWhatAReplicaAcknowledged() {
        try (RedisSentinelGroup group = RedisSentinelGroup.start()) {
            RedisSentinelConfiguration sentinels = new RedisSentinelConfiguration();
            sentinels.master(RedisSentinelGroup.MASTER_NAME);
            group.sentinelUris().forEach(uri -> sentinels.sentinel(URI.create(uri).getHost(), URI.create(uri).getPort()));
            LettuceConnectionFactory factory = new LettuceConnectionFactory(sentinels);
            factory.afterPropertiesSet();
            factory.start();
            try {
                run(group, () -> SpringDataRedisScriptClient.of(factory));
            } finally {
                factory.destroy();
            }
        }
    }

    private void run(RedisSentinelGroup group, Supplier<RedisScriptClient> clients) {
        RedisProcess master = group.master();
        RedisProcess replica = group.replica();
        String prefix = RedisClients.fastRedis().build().keyPrefix();
        // A replica starved of CPU (parallel builds) has answered WAIT after more than the default 500 ms.
        RedisLeaseConfig acknowledged = RedisClients.fastRedis().keyPrefix(prefix)
                .openStateDuration(Duration.ofMillis(500)).replicaTimeout(Duration.ofSeconds(3)).build();
        RedisLeaseConfig unacknowledged = RedisClients.fastRedis().keyPrefix(prefix)
                .openStateDuration(Duration.ofMillis(500))
                .replicaAcknowledgements(0, RedisLeaseConfig.DEFAULT_REPLICA_TIMEOUT).build();
        assertThat(acknowledged.replicaAcknowledgements()).as("left to the provider").isEqualTo(-1);
        LeaseManager managerA = LeaseManager.of(RedisLeaseProvider.of(clients.get(), acknowledged), LEASE);
        LeaseManager unsafe = LeaseManager.of(RedisLeaseProvider.of(clients.get(), unacknowledged), UNRENEWED_DURING_FAILOVER);
        LeaseManager managerB = null;
        try {
            // A grant is on the replica when it is handed out.
            Lease granted = managerA.acquire("ledger:granted", Duration.ofSeconds(5));
            LeaseKeys grantedKeys = LeaseKeys.of(prefix, ResourceName.of("ledger:granted"));
            assertThat(replica.call("HGET", grantedKeys.lock(), "token")).isEqualTo(granted.token().toString());

            // The replica stops and loses its link: grants that wait for it are refused, the others are not.
            Lease unacknowledgedLease = onTheMasterAloneThenKillIt(group, () -> {
                assertThatThrownBy(() -> managerA.acquire("ledger:refused", Duration.ofSeconds(5)))
                        .isInstanceOf(LeaseUnavailableException.class)
                        .hasMessageContaining("0 of 1 replica(s) acknowledged");
                LeaseKeys refusedKeys = LeaseKeys.of(prefix, ResourceName.of("ledger:refused"));
                assertThat(master.call("EXISTS", refusedKeys.lock())).as("the refused grant was given back").isEqualTo(0L);
                return unsafe.acquire("ledger:unsafe", Duration.ofSeconds(5));
            });
            group.killMasterAndAwaitFailover();
            assertThat(group.currentMasterPort()).isEqualTo(replica.port());

            // Another client after the failover (the new master has no replica left: it waits for none).
            managerB = LeaseManager.of(RedisLeaseProvider.of(clients.get(), acknowledged), LEASE);
            LeaseManager b = managerB;
            Optional<Lease> again = retrying(() -> b.tryAcquire("ledger:granted"));
            assertThat(again).as("the acknowledged grant survived the failover: not granted twice").isEmpty();
            assertThat(granted.isValid()).isTrue();
            try (Lease refusedBefore = retrying(() -> b.acquire("ledger:refused", Duration.ofSeconds(5)))) {
                assertThat(refusedBefore.isValid()).as("the refused grant left nothing behind").isTrue();
            }
            Optional<Lease> twice = retrying(() -> b.tryAcquire("ledger:unsafe"));
            assertThat(twice).as("without acknowledgements the failover forgot the lock: granted twice").isPresent();
            assertThat(unacknowledgedLease.isValid()).as("while its first holder still holds it").isTrue();
            twice.get().close();
            granted.close();
        } finally {
            managerA.close();
            unsafe.close();
            if (managerB != null) {
                managerB.close();
            }
        }
    }
}
