package io.fenceguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.redis.internal.EpochTokens;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.test.support.TestServers;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * Every client of one lock store takes its epochs from one source: Redis records the first client's source, and a
 * client on a sequence of another schema (another counter) or on the clock floor is refused at start-up, naming both.
 * Real PostgreSQL and Redis.
 */
class EpochSourceIdentityTest {

    private RedissonClient client;
    private ScratchDataSource first;
    private ScratchDataSource second;
    private JdbcTokenEpochSource firstEpochs;
    private JdbcTokenEpochSource secondEpochs;

    @BeforeEach
    void start() {
        client = RedisClients.single(TestServers.redis().uri());
        first = ScratchDataSource.on(TestServers.postgres(), "fg_epoch_a");
        second = ScratchDataSource.on(TestServers.postgres(), "fg_epoch_b");
        firstEpochs = JdbcTokenEpochSource.of(first, first.space().schema() + ".fenceguard_token_epoch", Duration.ofSeconds(5));
        secondEpochs = JdbcTokenEpochSource.of(second, second.space().schema() + ".other_epochs", Duration.ofSeconds(5));
    }

    @AfterEach
    void stop() {
        client.shutdown();
        first.close();
        second.close();
    }

    @Test
    void aClientOnAnotherSequenceIsRefusedAtStartUpNamingBothSources() {
        RedisLeaseConfig.Builder shared = RedisClients.fastRedis();
        RedisLeaseConfig withFirst = shared.tokenEpochSource(firstEpochs).build();
        try (RedisLeaseProvider provider = RedisLeaseProvider.of(RedissonScriptClient.of(client), withFirst)) {
            assertThat(client.<String>getBucket(withFirst.keyPrefix() + "epoch-source",
                    org.redisson.client.codec.StringCodec.INSTANCE).get())
                    .as("recorded at start-up").isEqualTo(firstEpochs.identity());
            assertThat(firstEpochs.identity()).contains(first.space().schema().toLowerCase(), "fenceguard_token_epoch");
            assertThat(secondEpochs.identity()).isNotEqualTo(firstEpochs.identity());

            RedisLeaseConfig withSecond = RedisLeaseConfig.builder().keyPrefix(withFirst.keyPrefix())
                    .tokenEpochSource(secondEpochs).build();
            assertThatThrownBy(() -> RedisLeaseProvider.of(RedissonScriptClient.of(client), withSecond))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(firstEpochs.identity()).hasMessageContaining(secondEpochs.identity());

            RedisLeaseConfig onClock = RedisLeaseConfig.builder().keyPrefix(withFirst.keyPrefix()).build();
            assertThatThrownBy(() -> RedisLeaseProvider.of(RedissonScriptClient.of(client), onClock))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(firstEpochs.identity()).hasMessageContaining("clock floor");

            // A second client on the same sequence, through another DataSource object, is one of the store's clients.
            JdbcTokenEpochSource sameSequence = JdbcTokenEpochSource.of(first, firstEpochs.sequence(), Duration.ofSeconds(5));
            RedisLeaseConfig again = RedisLeaseConfig.builder().keyPrefix(withFirst.keyPrefix())
                    .tokenEpochSource(sameSequence).build();
            try (RedisLeaseProvider other = RedisLeaseProvider.of(RedissonScriptClient.of(client), again);
                 LeaseManager manager = LeaseManager.of(other, RedisClients.fastLease().build());
                 Lease lease = manager.acquire("account:1", Duration.ofSeconds(1))) {
                assertThat(lease.token().value()).isGreaterThanOrEqualTo(EpochTokens.token(firstEpochs.highestEpoch(), 0));
            }
        }
    }

    @Test
    void afterTheStoreLostItsRecordAClientOnAnotherSequenceIsRefusedBeforeItTakesAnEpoch() {
        RedisLeaseConfig withFirst = RedisClients.fastRedis().tokenEpochSource(firstEpochs).build();
        RedisLeaseConfig withSecond = RedisLeaseConfig.builder().keyPrefix(withFirst.keyPrefix())
                .lockDelay(withFirst.lockDelay()).tokenEpochSource(secondEpochs).build();
        // Both start on an empty store (as after a FLUSHALL): the first to take an epoch records its source.
        client.getKeys().delete(withFirst.keyPrefix() + "epoch-source");
        RedisLeaseProvider a = RedisLeaseProvider.of(RedissonScriptClient.of(client), withFirst);
        client.getKeys().delete(withFirst.keyPrefix() + "epoch-source");
        RedisLeaseProvider b = RedisLeaseProvider.of(RedissonScriptClient.of(client), withSecond);
        client.getKeys().delete(withFirst.keyPrefix() + "epoch-source");
        try (LeaseManager managerA = LeaseManager.of(a, RedisClients.fastLease().build());
             LeaseManager managerB = LeaseManager.of(b, RedisClients.fastLease().build())) {
            try (Lease lease = managerA.acquire("account:1", Duration.ofSeconds(1))) {
                assertThat(lease.token().value()).isPositive();
            }
            long epochsBefore = b.epochsTaken();
            assertThatThrownBy(() -> managerB.acquire("account:2", Duration.ofSeconds(1)))
                    .hasMessageContaining(firstEpochs.identity()).hasMessageContaining(secondEpochs.identity());
            assertThat(b.epochsTaken()).as("no epoch taken from the other sequence").isEqualTo(epochsBefore);
        }
    }

    @Test
    void highestEpochIsTheLastOneHandedOutAndStartsAtTheClockBeforeTheSequenceExists() {
        long clockEpoch = System.currentTimeMillis() * 1000 / EpochTokens.PER_EPOCH;
        assertThat(firstEpochs.highestEpoch()).as("no sequence yet").isBetween(clockEpoch, clockEpoch + 1);
        long e1 = firstEpochs.nextEpoch();
        assertThat(firstEpochs.highestEpoch()).isEqualTo(e1);
        long e2 = firstEpochs.nextEpoch();
        assertThat(firstEpochs.highestEpoch()).isEqualTo(e2).isGreaterThan(e1);
    }
}
