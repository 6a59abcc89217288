package io.fenceguard.etcd;

import io.fenceguard.core.LeaseConfig;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.test.support.ScratchSpace;
import io.fenceguard.test.support.TestServers;
import io.fenceguard.test.support.faults.PausedHolderRounds;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Semaphore permits and multi-resource leases on a three-member etcd cluster, with holders that pause past their
 * lease, writing to PostgreSQL through row fencing: no stale write admitted, no round hung, never more valid holders
 * than permits. {@code -Dfenceguard.rounds=N} runs N rounds per holder (default 10).
 */
class EtcdPermitsAndMultiLeaseRoundsTest {

    /** etcd keeps a lease at least 1.5 s (three halves of its election timeout), counted in whole seconds. */
    private static final LeaseConfig LEASE = LeaseConfig.builder().leaseTime(Duration.ofSeconds(2)).build();

    @Test
    void pausedHoldersNeverWriteStaleAndNoRoundHangs() throws Exception {
        var client = EtcdCluster.sharedClient();
        try (ScratchSpace space = ScratchSpace.create(TestServers.postgres(), "fg_etcd_permits")) {
            DataSource raw = space.dataSource();
            FenceguardMigrations.migrate(raw);
            PausedHolderRounds.createTable(raw, "permit_rows");
            DataSource fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence("permit_rows").build());
            long seed = Long.getLong("fenceguard.seed", System.nanoTime());
            PausedHolderRounds.Figures figures = PausedHolderRounds.run(new PausedHolderRounds.Settings(
                    () -> EtcdLeaseProvider.of(client, EtcdCluster.CONFIG), LEASE, raw, fenced, "permit_rows", 6,
                    Integer.getInteger("fenceguard.rounds", 10), 0.12, Duration.ofMillis(3_000), Duration.ofSeconds(15),
                    seed));
            System.out.println("etcd permits and multi-resource leases (seed " + seed + "): " + figures);
            figures.assertSafeAndLive();
        }
    }
}
