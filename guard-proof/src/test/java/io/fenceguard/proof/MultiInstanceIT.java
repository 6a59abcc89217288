package io.fenceguard.proof;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The short multi-instance run, only with {@code -Dproof.multi=true} (it needs the example service's jar and
 * starts three of it): four faults, each followed by the ledger's invariants. Fails on any violation, and when a
 * fault saw no deposit acknowledged (the run would prove nothing).
 */
@EnabledIfSystemProperty(named = "proof.multi", matches = "true")
class MultiInstanceIT {

    @Test
    void ledgerInvariantsHoldAfterEachClusterFault() throws Exception {
        MultiInstanceRun.Settings settings = new MultiInstanceRun.Settings(
                Path.of(System.getProperty("proof.jar", "../example-service/target/example-service.jar")),
                Path.of("target/proof/multi-it"), 3, 6, 4,
                List.of(ClusterFault.INSTANCE_KILL, ClusterFault.REDIS_FAILOVER, ClusterFault.INSTANCE_PAUSE,
                        ClusterFault.STORE_LINK_DELAY),
                Duration.ofSeconds(12), Duration.ofSeconds(2), Duration.ZERO, Duration.ofSeconds(10), 20240611L, true);

        List<MultiInstanceRun.FaultOutcome> outcomes = MultiInstanceRun.run(settings);

        assertThat(outcomes).extracting(MultiInstanceRun.FaultOutcome::fault).containsExactlyElementsOf(settings.faults());
        for (MultiInstanceRun.FaultOutcome outcome : outcomes) {
            assertThat(outcome.acknowledged()).as("deposits acknowledged around %s", outcome.fault()).isPositive();
            assertThat(outcome.violations()).as("ledger invariants after %s", outcome.fault()).isEmpty();
        }
    }
}
