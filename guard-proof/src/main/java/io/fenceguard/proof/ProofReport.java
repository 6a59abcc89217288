package io.fenceguard.proof;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The outputs of runs: a table on stdout, {@code result.json}, and a PNG per run. */
final class ProofReport {

    private ProofReport() {
    }

    static void write(List<ProofRun.Result> runs, Path outDir) throws IOException {
        Files.createDirectories(outDir);
        System.out.println(table(runs));
        Map<String, Object> json = new LinkedHashMap<>();
        for (ProofRun.Result run : runs) {
            Path png = outDir.resolve(run.fencing() ? "proof-fencing-on.png" : "proof-fencing-off.png");
            ProofChart.write(run, png);
            json.put(run.fencing() ? "fencingOn" : "fencingOff", summary(run, png));
        }
        Files.writeString(outDir.resolve("result.json"),
                HistoryFile.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(json));
        System.out.println("results: " + outDir.toAbsolutePath().resolve("result.json"));
    }

    static String table(List<ProofRun.Result> runs) {
        StringBuilder out = new StringBuilder("\n");
        String row = "%-28s" + "%16s".repeat(runs.size()) + "%n";
        out.append(String.format(row, header(runs)));
        line(out, row, runs, "duration (s)", r -> (r.endMillis() - r.startMillis()) / 1000);
        line(out, row, runs, "clients (threads+JVMs)", r -> r.settings().clients());
        line(out, row, runs, "faults injected", r -> r.faults().size());
        line(out, row, runs, "operations", r -> r.findings().ops());
        line(out, row, runs, "  ok", r -> r.findings().ok());
        line(out, row, runs, "  failed", r -> r.findings().failed());
        line(out, row, runs, "  unknown", r -> r.findings().unknown());
        line(out, row, runs, "  refused by a fence", r -> r.history().stream().filter(Op::fencedOff).count());
        line(out, row, runs, "writes admitted (log)", r -> r.findings().writesAdmitted());
        line(out, row, runs, "availability", r -> String.format("%.1f %%", 100 * r.findings().availability()));
        line(out, row, runs, "LOST acknowledged writes", r -> r.findings().lostAcknowledged());
        line(out, row, runs, "STALE writes admitted", r -> r.findings().staleAdmitted());
        line(out, row, runs, "DUPLICATE tokens", r -> r.findings().duplicateTokens());
        line(out, row, runs, "LEDGER totals wrong", r -> r.findings().ledgerMismatches());
        line(out, row, runs, "ANOMALIES", r -> r.findings().anomalyCount());
        return out.toString();
    }

    private static Object[] header(List<ProofRun.Result> runs) {
        Object[] cells = new Object[runs.size() + 1];
        cells[0] = "";
        for (int i = 0; i < runs.size(); i++) {
            cells[i + 1] = runs.get(i).fencing() ? "fencing ON" : "fencing OFF";
        }
        return cells;
    }

    private static void line(StringBuilder out, String row, List<ProofRun.Result> runs, String label,
            java.util.function.Function<ProofRun.Result, Object> value) {
        Object[] cells = new Object[runs.size() + 1];
        cells[0] = label;
        for (int i = 0; i < runs.size(); i++) {
            cells[i + 1] = String.valueOf(value.apply(runs.get(i)));
        }
        out.append(String.format(row, cells));
    }

    private static Map<String, Object> summary(ProofRun.Result run, Path png) {
        HistoryChecker.Findings f = run.findings();
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("seed", run.settings().seed());
        s.put("clients", run.settings().clients());
        s.put("workerJvms", ProofSettings.WORKER_JVMS);
        s.put("durationSeconds", run.settings().duration().toSeconds());
        s.put("leaseMillis", run.settings().leaseMillis());
        s.put("operations", f.ops());
        s.put("ok", f.ok());
        s.put("failed", f.failed());
        s.put("unknown", f.unknown());
        s.put("availability", f.availability());
        s.put("writesAdmitted", f.writesAdmitted());
        s.put("lostAcknowledgedWrites", f.lostAcknowledged());
        s.put("staleWritesAdmitted", f.staleAdmitted());
        s.put("duplicateTokens", f.duplicateTokens());
        s.put("ledgerMismatches", f.ledgerMismatches());
        s.put("anomalies", f.anomalyCount());
        s.put("failuresByKind", f.failuresByKind());
        s.put("faults", run.faults());
        s.put("anomalyExamples", f.anomalies().stream().limit(50).toList());
        s.put("chart", png.toString());
        s.put("histories", run.dir().toString());
        return s;
    }
}
