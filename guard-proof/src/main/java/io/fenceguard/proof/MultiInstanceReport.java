package io.fenceguard.proof;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The multi-instance run as a text table: one line per fault, then the totals. */
final class MultiInstanceReport {

    private MultiInstanceReport() {
    }

    static void write(MultiInstanceRun.Settings settings, List<MultiInstanceRun.FaultOutcome> outcomes, Path file)
            throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add(String.format("multi-instance run%s: %d instances, %d clients, %d accounts, lease %d ms, %d s of load per fault%s",
                settings.fencing() ? "" : " WITH FENCING OFF (the control)", settings.instances(), settings.clients(), settings.accounts(), settings.lease().toMillis(),
                settings.load().toSeconds(), settings.soak().isZero() ? "" : ", soak " + settings.soak().toMinutes() + " min"));
        lines.add(String.format("%-5s %-24s %-22s %7s %7s %8s  %s", "round", "fault", "target", "sent", "acked",
                "drain ms", "answers / violations"));
        long sent = 0;
        long acked = 0;
        long violations = 0;
        for (MultiInstanceRun.FaultOutcome o : outcomes) {
            lines.add(String.format("%-5d %-24s %-22s %7d %7d %8d  %s %s", o.round(), o.fault(), o.target(), o.sent(),
                    o.acknowledged(), o.drainMillis(), o.answers(),
                    o.violations().isEmpty() ? "invariants hold" : o.violations()));
            sent += o.sent();
            acked += o.acknowledged();
            violations += o.violations().size();
        }
        lines.add(String.format("total: %d deposits sent, %d acknowledged, %d violations", sent, acked, violations));
        Files.createDirectories(file.getParent());
        Files.write(file, lines);
    }
}
