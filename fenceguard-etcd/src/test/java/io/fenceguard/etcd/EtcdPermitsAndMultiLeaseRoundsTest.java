package io.fenceguard.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.LeaseConfig;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.testsupport.ScratchSpace;
import io.fenceguard.testsupport.TestServers;
import io.fenceguard.testsupport.faults.PausedHolderRounds;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

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
            PGSimpleDataSource raw = new PGSimpleDataSource();
            raw.setURL(space.jdbcUrl());
            raw.setUser(space.server().user());
            raw.setPassword(space.server().password());
            raw.setCurrentSchema(space.schema());
            FenceguardMigrations.migrate(raw);
            PausedHolderRounds.createTable(raw, "permit_rows");
            DataSource fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence("permit_rows").build());
            long seed = Long.getLong("fenceguard.seed", System.nanoTime());
            PausedHolderRounds.Figures figures = PausedHolderRounds.run(new PausedHolderRounds.Settings(
                    () -> EtcdLeaseProvider.of(client, EtcdCluster.CONFIG), LEASE, raw, fenced, "permit_rows", 6,
                    Integer.getInteger("fenceguard.rounds", 10), 0.12, Duration.ofMillis(3_000), Duration.ofSeconds(15),
                    seed));
            System.out.println("etcd permits and multi-resource leases (seed " + seed + "): " + figures);
            assertThat(figures.staleWritesAdmitted()).isZero();
            assertThat(figures.validHoldersRefused()).isZero();
            assertThat(figures.pauses()).isPositive();
            assertThat(figures.lostLeases()).isGreaterThanOrEqualTo(figures.pauses());
            assertThat(figures.permitGrants()).isPositive();
            assertThat(figures.resourcePermitGrants()).isPositive();
            assertThat(figures.multiGrants()).isPositive();
            // Sorted acquisition leaves no cycle to wait in: a timeout is a holder that lost the race for a hot
            // resource too often (locks are not fair), never a round stuck behind another.
            assertThat(figures.timeouts()).as("timeouts").isLessThanOrEqualTo(figures.rounds() / 10);
        }
    }
}
