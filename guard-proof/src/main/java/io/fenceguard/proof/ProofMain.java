package io.fenceguard.proof;

import java.time.Duration;
import java.util.List;

/**
 * The long configuration, run by the {@code proof} Maven profile: the run with fencing, then the same
 * workload and nemesis seed without. Exits 1 when fencing let an anomaly through or when the run
 * without fencing saw none (then the harness proves nothing).
 */
public final class ProofMain {

    private ProofMain() {
    }

    public static void main(String[] args) throws Exception {
        ProofSettings settings = ProofSettings.fromSystemProperties(Duration.ofMinutes(10), 8);
        Duration offDuration = ProofSettings.parse(System.getProperty("proof.off-duration"), settings.duration());
        ProofRun.Result on = ProofRun.run(settings, true);
        ProofRun.Result off = ProofRun.run(settings.withDuration(offDuration), false);
        ProofReport.write(List.of(on, off), settings.outDir());
        boolean proven = on.findings().anomalyCount() == 0 && off.findings().anomalyCount() > 0;
        System.out.println(proven ? "PROOF HOLDS: no anomaly with fencing, " + off.findings().anomalyCount()
                + " without" : "PROOF FAILED");
        System.exit(proven ? 0 : 1);
    }
}
