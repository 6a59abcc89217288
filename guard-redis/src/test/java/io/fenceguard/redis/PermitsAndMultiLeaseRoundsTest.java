package io.fenceguard.redis;

import io.fenceguard.core.LeaseConfig;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.test.support.ScratchSpace;
import io.fenceguard.test.support.TestServers;
import io.fenceguard.test.support.faults.PausedHolderRounds;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * Semaphore permits and multi-resource leases on Redis, with holders that pause past their lease, writing to
 * PostgreSQL through row fencing: no stale write admitted, no round hung, never more valid holders than permits.
 * {@code -Dfenceguard.rounds=N} runs N rounds per holder (default 12).
 */
class PermitsAndMultiLeaseRoundsTest {

    private static final LeaseConfig LEASE = LeaseConfig.builder().leaseTime(Duration.ofSeconds(1)).build();

    @Test
    void pausedHoldersNeverWriteStaleAndNoRoundHangs() throws Exception {
        RedissonClient client = RedisClients.single(TestServers.redis().uri());
        RedisLeaseConfig redis = RedisClients.fastRedis().lockDelay(Duration.ofMillis(300)).build();
        try (ScratchSpace space = ScratchSpace.create(TestServers.postgres(), "fg_permits")) {
            DataSource raw = space.dataSource();
            FenceguardMigrations.migrate(raw);
            PausedHolderRounds.createTable(raw, "permit_rows");
            DataSource fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence("permit_rows").build());
            long seed = Long.getLong("fenceguard.seed", System.nanoTime());
            PausedHolderRounds.Figures figures = PausedHolderRounds.run(new PausedHolderRounds.Settings(
                    () -> RedisLeaseProvider.of(RedissonScriptClient.of(client), redis), LEASE, raw, fenced,
                    "permit_rows", 6, Integer.getInteger("fenceguard.rounds", 12), 0.12, Duration.ofMillis(1_500),
                    Duration.ofSeconds(10), seed));
            System.out.println("Redis permits and multi-resource leases (seed " + seed + "): " + figures);
            figures.assertSafeAndLive();
        } finally {
            client.shutdown();
        }
    }
}
