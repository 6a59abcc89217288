package io.fenceguard.redis;

import static io.fenceguard.redis.SentinelFaults.onTheMasterAloneThenKillIt;
import static io.fenceguard.redis.SentinelFaults.retrying;
import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import io.fenceguard.redis.internal.LeaseKeys;
import io.fenceguard.test.support.RedisProcess;
import io.fenceguard.test.support.RedisSentinelGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * Token rules 2-4 through a Sentinel failover to a replica that missed the last writes of its master:
 * the replica is frozen (SIGSTOP) and cut off from the master, more tokens are minted on the master
 * alone, the master is killed, and the sentinels promote the replica without those writes.
 */
class SentinelTest {

    private static final String MASTER = RedisSentinelGroup.MASTER_NAME;

    @Test
    void tokensKeepGrowingAfterFailoverToAReplicaThatMissedWrites() {
        try (RedisSentinelGroup group = RedisSentinelGroup.start()) {
            RedissonClient clientA = RedisClients.sentinel(MASTER, group.sentinelUris());
            RedissonClient clientB = RedisClients.sentinel(MASTER, group.sentinelUris());
            // Leases long enough to outlive the failover, so that a lease held across it stays valid.
            LeaseConfig leaseConfig = LeaseConfig.builder().leaseTime(Duration.ofSeconds(20)).build();
            // Grants that do not wait for the replica: this test makes the master grant what the replica misses.
            RedisLeaseConfig config = RedisClients.fastRedis()
                    .openStateDuration(Duration.ofMillis(500))
                    .replicaAcknowledgements(0, RedisLeaseConfig.DEFAULT_REPLICA_TIMEOUT)
                    .build();
            LeaseManager managerA = RedisClients.manager(clientA, config, leaseConfig);
            LeaseManager managerB = RedisClients.manager(clientB, config, leaseConfig);
            try {
                run(group, config, managerA, managerB);
            } finally {
                managerA.close();
                managerB.close();
                clientA.shutdown();
                clientB.shutdown();
            }
        }
    }

    private void run(RedisSentinelGroup group, RedisLeaseConfig config, LeaseManager managerA, LeaseManager managerB) {
        RedisProcess master = group.master();
        RedisProcess replica = group.replica();
        String resource = "ledger:7";
        String strandedResource = "ledger:stranded";
        String heldResource = "ledger:held";
        LeaseKeys keys = LeaseKeys.of(config.keyPrefix(), ResourceName.of(resource));
        LeaseKeys strandedKeys = LeaseKeys.of(config.keyPrefix(), ResourceName.of(strandedResource));
        LeaseKeys heldKeys = LeaseKeys.of(config.keyPrefix(), ResourceName.of(heldResource));
        List<Long> issued = new ArrayList<>();

        // Before the fault: tokens grow across both clients, and a re-entrant lease is held.
        for (int i = 0; i < 30; i++) {
            mint(i % 2 == 0 ? managerA : managerB, resource, issued);
        }
        Lease held = managerA.acquire(heldResource, Duration.ofSeconds(5));
        try (Lease inner = managerA.acquire(heldResource, Duration.ofSeconds(5))) {
            assertThat(inner.token()).isEqualTo(held.token());
        }
        assertThat(master.call("WAIT", "1", "5000")).as("replica acknowledged everything so far").isEqualTo(1L);
        long lastReplicated = last(issued);
        assertThat(replica.call("GET", keys.seq())).isEqualTo(String.valueOf(lastReplicated));
        assertThat(replica.call("HGET", heldKeys.lock(), "token")).isEqualTo(held.token().toString());

        // The replica stops and loses its link; the master goes on minting alone, then dies.
        Lease stranded = onTheMasterAloneThenKillIt(group, () -> {
            for (int i = 0; i < 20; i++) {
                mint(i % 2 == 0 ? managerA : managerB, resource, issued);
            }
            return managerA.acquire(strandedResource, Duration.ofSeconds(5));
        });
        long lastBeforeFailover = last(issued);
        assertThat(lastBeforeFailover).isGreaterThan(lastReplicated);
        group.killMasterAndAwaitFailover();

        // The promoted replica really lacks the writes made while it was cut off.
        assertThat(group.currentMasterPort()).isEqualTo(replica.port());
        assertThat(replica.call("GET", keys.seq())).as("sequence on the promoted replica")
                .isEqualTo(String.valueOf(lastReplicated));
        assertThat(replica.call("EXISTS", strandedKeys.lock())).as("lock taken while the replica was cut off")
                .isEqualTo(0L);

        // After the failover: every new token is above every token issued before it.
        long highestBefore = issued.stream().mapToLong(Long::longValue).max().orElseThrow();
        int before = issued.size();
        for (int i = 0; i < 20; i++) {
            LeaseManager manager = i % 2 == 0 ? managerB : managerA;
            try (Lease lease = retrying(() -> manager.acquire(resource, Duration.ofSeconds(5)))) {
                issued.add(lease.token().value());
            }
        }
        assertThat(issued.get(before)).as("first token after the failover").isGreaterThan(highestBefore);
        assertStrictlyIncreasing(issued);
        assertThat(replica.call("GET", keys.seq())).isEqualTo(String.valueOf(last(issued)));

        // The lease whose lock died with the old master: another client now gets a greater token.
        try (Lease taken = retrying(() -> managerB.acquire(strandedResource, Duration.ofSeconds(5)))) {
            assertThat(taken.token()).isGreaterThan(stranded.token());
        }
        stranded.close();

        // Rule 3 across the failover: the replicated lease is still held and re-entry keeps its token.
        try (Lease again = retrying(() -> managerA.acquire(heldResource, Duration.ofSeconds(5)))) {
            assertThat(again.token()).isEqualTo(held.token());
        }
        Optional<Lease> intruder = retrying(() -> managerB.tryAcquire(heldResource));
        assertThat(intruder).as("lease replicated before the failover is still exclusive").isEmpty();
        assertThat(held.isValid()).isTrue();
        held.close();
        try (Lease next = retrying(() -> managerB.acquire(heldResource, Duration.ofSeconds(5)))) {
            assertThat(next.token()).isGreaterThan(held.token());
            try (Lease inner = managerB.acquire(heldResource, Duration.ZERO)) {
                assertThat(inner.token()).isEqualTo(next.token());
            }
            assertThat(replica.call("HGET", heldKeys.lock(), "token")).isEqualTo(next.token().toString());
        }
    }

    private static void mint(LeaseManager manager, String resource, List<Long> issued) {
        try (Lease lease = manager.acquire(resource, Duration.ofSeconds(5))) {
            if (!issued.isEmpty()) {
                assertThat(lease.token().value()).isGreaterThan(last(issued));
            }
            issued.add(lease.token().value());
        }
    }

    private static void assertStrictlyIncreasing(List<Long> tokens) {
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("token %d of %d", i, tokens.size()).isGreaterThan(tokens.get(i - 1));
        }
    }

    private static long last(List<Long> tokens) {
        return tokens.get(tokens.size() - 1);
    }
}
