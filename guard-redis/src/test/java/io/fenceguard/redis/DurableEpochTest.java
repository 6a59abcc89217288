package io.fenceguard.redis;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.redis.internal.EpochTokens;
import io.fenceguard.redis.internal.LeaseKeys;
import io.fenceguard.core.ResourceName;
import io.fenceguard.test.support.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The durable epoch's own rules, on a redis-server of the test's own and a counter standing in for the
 * database sequence: an epoch only when the counter is missing, and never one taken before a loss.
 */
class DurableEpochTest {

    private RedisProcess redis;
    private RedissonClient client;
    private final AtomicLong sequence = new AtomicLong(1000);
    private final AtomicInteger calls = new AtomicInteger();

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

    private RedisLeaseConfig.Builder config(TokenEpochSource source) {
        return RedisClients.fastRedis().attempts(5).tokenEpochSource(source);
    }

    private TokenEpochSource counting() {
        return () -> {
            calls.incrementAndGet();
            return sequence.incrementAndGet();
        };
    }

    @Test
    void anEpochIsTakenOnlyWhenRedisHasNoCounter() {
        RedisLeaseProvider provider = RedisLeaseProvider.of(RedissonScriptClient.of(client), config(counting()).build());
        LeaseManager manager = LeaseManager.of(provider, RedisClients.fastLease().build());
        try {
            List<Long> tokens = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                try (Lease lease = manager.acquire("account:1", Duration.ofSeconds(1))) {
                    tokens.add(lease.token().value());
                }
            }
            assertThat(calls.get()).as("epochs for 100 grants on one resource").isEqualTo(1);
            assertThat(tokens.get(0)).isEqualTo(EpochTokens.token(1001, 0));
            for (int i = 1; i < tokens.size(); i++) {
                assertThat(tokens.get(i)).isEqualTo(tokens.get(i - 1) + 1);
            }

            redis.flushAll();
            try (Lease lease = manager.acquire("account:1", Duration.ofSeconds(1))) {
                assertThat(lease.token().value()).isEqualTo(EpochTokens.token(1002, 0))
                        .isGreaterThan(tokens.get(tokens.size() - 1));
            }
            assertThat(calls.get()).isEqualTo(2);
            assertThat(provider.epochsTaken()).isEqualTo(2);
        } finally {
            manager.close();
        }
    }

    /**
     * Holder A finds no counter and takes epoch E, but stalls before installing it; meanwhile B takes E+1,
     * installs it and is granted tokens, then Redis loses everything. A's E must not be installed now: its
     * token would be below B's. The claim A installs under is gone with the loss, so A takes a new epoch.
     */
    @Test
    void anEpochTakenBeforeALossIsNeverInstalledAfterIt() {
        List<Long> bTokens = new ArrayList<>();
        RedisLeaseProvider b = RedisLeaseProvider.of(RedissonScriptClient.of(client), config(counting()).build());
        LeaseManager bManager = LeaseManager.of(b, RedisClients.fastLease().build());
        String prefix = b.config().keyPrefix();
        AtomicInteger aCalls = new AtomicInteger();
        TokenEpochSource stallingThenLoss = () -> {
            long epoch = counting().nextEpoch();
            if (aCalls.incrementAndGet() == 1) {
                for (int i = 0; i < 3; i++) {
                    try (Lease lease = bManager.acquire("account:2", Duration.ofSeconds(1))) {
                        bTokens.add(lease.token().value());
                    }
                }
                redis.flushAll();
            }
            return epoch;
        };
        RedisLeaseProvider a = RedisLeaseProvider.of(RedissonScriptClient.of(client), config(stallingThenLoss).keyPrefix(prefix).build());
        LeaseManager aManager = LeaseManager.of(a, RedisClients.fastLease().build());
        try (Lease lease = aManager.acquire("account:2", Duration.ofSeconds(1))) {
            assertThat(bTokens).hasSize(3);
            assertThat(lease.token().value()).as("A's token after B's and the loss")
                    .isGreaterThan(bTokens.get(2));
            assertThat(a.epochsTaken()).as("A's first epoch was thrown away").isEqualTo(2);
        } finally {
            aManager.close();
            bManager.close();
        }
    }

    @Test
    void aFailingEpochSourceFailsTheAcquireClearlyAndGrantsNothing() {
        TokenEpochSource down = () -> {
            throw new IllegalStateException("database is down");
        };
        RedisLeaseProvider provider = RedisLeaseProvider.of(RedissonScriptClient.of(client), config(down).build());
        LeaseManager manager = LeaseManager.of(provider, RedisClients.fastLease().build());
        try {
            assertThatThrownBy(() -> manager.acquire("account:3", Duration.ofSeconds(1)))
                    .isInstanceOf(LeaseUnavailableException.class)
                    .hasMessageContaining("account:3").hasMessageContaining("database is down");
            LeaseKeys keys = LeaseKeys.of(provider.config().keyPrefix(), ResourceName.of("account:3"));
            assertThat(redis.call("EXISTS", keys.lock())).isEqualTo(0L);
            assertThat(redis.call("EXISTS", keys.epochSeq())).isEqualTo(0L);
        } finally {
            manager.close();
        }
    }

    @Test
    void anEpochUsedUpMovesToTheNext() {
        RedisLeaseProvider provider = RedisLeaseProvider.of(RedissonScriptClient.of(client), config(counting()).build());
        LeaseManager manager = LeaseManager.of(provider, RedisClients.fastLease().build());
        try {
            long first;
            try (Lease lease = manager.acquire("account:4", Duration.ofSeconds(1))) {
                first = lease.token().value();
            }
            LeaseKeys keys = LeaseKeys.of(provider.config().keyPrefix(), ResourceName.of("account:4"));
            redis.call("HSET", keys.epochSeq(), "n", Long.toString(EpochTokens.PER_EPOCH - 1));
            try (Lease lease = manager.acquire("account:4", Duration.ofSeconds(1))) {
                assertThat(lease.token().value()).isEqualTo(EpochTokens.token(1002, 0)).isGreaterThan(first);
            }
            assertThat(provider.epochsTaken()).isEqualTo(2);
        } finally {
            manager.close();
        }
    }
}
