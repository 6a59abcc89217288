package io.fenceguard.proof;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The short multi-instance run, only with {@code -Dproof.multi=true} (it needs the example service's jar and
 * starts three of it): six faults, each followed by the ledger's invariants. Fails on any violation, and when a
 * fault saw no deposit acknowledged (the run would prove nothing). Then the control: a deposit paused inside its
 * read-modify-write with the SQL fence off must leave a lost update that the ledger check finds.
 */
@EnabledIfSystemProperty(named = "proof.multi", matches = "true")
class MultiInstanceIT {

    @Test
    void ledgerInvariantsHoldAfterEachClusterFault() throws Exception {
        MultiInstanceRun.Settings settings = new MultiInstanceRun.Settings(
                Path.of(System.getProperty("proof.jar", "../example-service/target/example-service.jar")),
                Path.of("target/proof/multi-it"), 3, 6, 4,
                List.of(ClusterFault.INSTANCE_KILL, ClusterFault.REDIS_FAILOVER, ClusterFault.INSTANCE_PAUSE,
                        ClusterFault.STORE_LINK_DELAY, ClusterFault.REDIS_LINK_DELAY, ClusterFault.HOLDER_PAUSE),
                Duration.ofSeconds(12), Duration.ofSeconds(2), Duration.ZERO, Duration.ofSeconds(10), 20240611L, true);

        List<MultiInstanceRun.FaultOutcome> outcomes = MultiInstanceRun.run(settings);

        assertThat(outcomes).extracting(MultiInstanceRun.FaultOutcome::fault).containsExactlyElementsOf(settings.faults());
        for (MultiInstanceRun.FaultOutcome outcome : outcomes) {
            assertThat(outcome.acknowledged()).as("deposits acknowledged around %s", outcome.fault()).isPositive();
            assertThat(outcome.violations()).as("ledger invariants after %s", outcome.fault()).isEmpty();
        }
    }

    @Test
    void withTheSqlFenceOffAPausedDepositLosesAnUpdate() throws Exception {
        MultiInstanceRun.Settings settings = new MultiInstanceRun.Settings(
                Path.of(System.getProperty("proof.jar", "../example-service/target/example-service.jar")),
                Path.of("target/proof/multi-it-fencing-off"), 3, 6, 4, List.of(ClusterFault.HOLDER_PAUSE),
                Duration.ofSeconds(12), Duration.ofSeconds(2), Duration.ZERO, Duration.ofSeconds(10), 20240611L, false);

        List<MultiInstanceRun.FaultOutcome> outcomes = MultiInstanceRun.run(settings);

        assertThat(outcomes).singleElement().satisfies(outcome -> assertThat(outcome.violations())
                .as("the paused deposit's stale write, unfenced").anyMatch(v -> v.contains(" lost; ")));
    }
}
