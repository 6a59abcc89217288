package io.fenceguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.admission.MarkHealing;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.test.support.RedisProcess;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * What the Redis provider minted, read from its counters on a redis-server of the test's own, on a durable epoch and
 * on the clock floor; and a mark above it set back by {@link MarkHealing}.
 */
class RedisIssuedTokensTest {

    private RedisProcess redis;
    private RedissonClient client;

    @BeforeEach
    void start() {
        redis = RedisProcess.start();
        client = RedisClients.single(redis.uri());
    }

    @AfterEach
    void stop() {
        client.shutdown();
        redis.close();
    }

    @Test
    void onADurableEpochTheHighestIssuedIsTheLastGrant() {
        AtomicLong sequence = new AtomicLong(105_000_000L);
        RedisLeaseConfig config = RedisClients.fastRedis().attempts(5).tokenEpochSource(sequence::incrementAndGet).build();
        RedisIssuedTokens issued = RedisIssuedTokens.of(RedissonScriptClient.of(client), config);
        LeaseManager manager = LeaseManager.of(RedisLeaseProvider.of(RedissonScriptClient.of(client), config),
                RedisClients.fastLease().build());
        ResourceName account = ResourceName.of("account:1");
        assertThat(issued.highestIssued(account)).as("never granted").isEmpty();
        long last = 0;
        for (int i = 0; i < 3; i++) {
            try (Lease lease = manager.acquire("account:1", Duration.ofSeconds(1))) {
                last = lease.token().value();
                assertThat(issued.highestIssued(account)).contains(lease.token());
            }
        }
        assertThat(last >>> 24).as("the epoch the resource took").isEqualTo(105_000_001L);
        // another resource takes a higher epoch; account:1's highest stays its own
        try (Lease other = manager.acquire("account:2", Duration.ofSeconds(1))) {
            assertThat(other.token().value() >>> 24).isEqualTo(105_000_002L);
        }
        assertThat(issued.highestIssued(account)).contains(FencingToken.of(last));

        // a mark in account:2's epoch was never granted to account:1: the first holder after it heals it
        InMemoryHighWaterStore store = InMemoryHighWaterStore.create();
        store.admit(new Fence(account, FencingToken.of((105_000_002L << 24) + 7)));
        MarkHealing healing = MarkHealing.of(store, issued);
        try (Lease lease = manager.acquire("account:1", Duration.ofSeconds(1))) {
            Admission stale = store.admit(new Fence(account, lease.token()));
            assertThat(stale.admitted()).isFalse();
            Admission healed = healing.heal(stale);
            assertThat(healed.admitted()).isTrue();
            assertThat(healed.highWater()).isEqualTo(lease.token());
        }
        assertThat(healing.healed()).isEqualTo(1);

        redis.flushAll();
        assertThat(issued.highestIssued(account)).as("a lost counter tells nothing").isEmpty();
        manager.close();
    }

    @Test
    void onTheClockFloorTheHighestIssuedIsTheLastToken() {
        RedisLeaseConfig config = RedisClients.fastRedis().build();
        RedisIssuedTokens issued = RedisIssuedTokens.of(RedissonScriptClient.of(client), config);
        LeaseManager manager = LeaseManager.of(RedisLeaseProvider.of(RedissonScriptClient.of(client), config),
                RedisClients.fastLease().build());
        try (Lease lease = manager.acquire("account:7", Duration.ofSeconds(1))) {
            assertThat(issued.highestIssued(ResourceName.of("account:7"))).isEqualTo(Optional.of(lease.token()));
        }
        assertThat(issued.highestIssued(ResourceName.of("account:8"))).isEmpty();
        manager.close();
        client.shutdown();
        assertThatThrownBy(() -> issued.highestIssued(ResourceName.of("account:7")))
                .as("an unreachable store fails, and the refusal stands").isInstanceOf(RuntimeException.class);
    }
}
