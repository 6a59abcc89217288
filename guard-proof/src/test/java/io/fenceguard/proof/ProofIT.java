package io.fenceguard.proof;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.FutureTask;
import org.junit.jupiter.api.Test;

/**
 * The short configuration of the fault-injection harness, in every build: 50 s with fencing, 40 s
 * without, four clients (two threads here, one in each of two worker JVMs). Fails on any anomaly
 * with fencing; requires anomalies without, or the harness would not see what fencing prevents.
 * The two runs share nothing (each starts its own servers on free ports, its own worker JVMs and its
 * own nemesis), so they run at the same time: the build waits for the longer one only.
 */
class ProofIT {

    @Test
    void fencingAdmitsNoAnomalyUnderFaultsThatBreakTheUnfencedLock() throws Exception {
        ProofSettings settings = ProofSettings.fromSystemProperties(Duration.ofSeconds(50), 4);
        ProofSettings offSettings = settings.withDuration(
                ProofSettings.parse(System.getProperty("proof.off-duration"), Duration.ofSeconds(40)));
        FutureTask<ProofRun.Result> unfenced = new FutureTask<>(() -> ProofRun.run(offSettings, false));
        Thread offThread = new Thread(unfenced, "proof-fencing-off");
        offThread.start();
        ProofRun.Result on;
        try {
            on = ProofRun.run(settings, true);
        } finally {
            offThread.join();
        }
        ProofRun.Result off = unfenced.get();
        ProofReport.write(List.of(on, off), settings.outDir());

        assertThat(on.faults()).as("faults injected with fencing").isNotEmpty();
        assertThat(on.findings().ok()).as("acknowledged operations with fencing").isGreaterThan(50);
        assertThat(on.findings().anomalies()).as("anomalies with fencing").isEmpty();
        assertThat(off.findings().anomalyCount()).as("anomalies without fencing").isGreaterThan(0);
    }
}
