package io.fenceguard.proof;

import io.fenceguard.proof.Nemesis.Kind;
import io.fenceguard.test.support.faults.ClockShim;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The fault matrix: each row one kind of fault (or two at once), run with fencing and then without,
 * same seed and duration; the table ({@code matrix.md}), a picture ({@code matrix.png}) and
 * {@code matrix.json} go to the output directory. A row whose fault cannot be injected on this machine
 * is reported as skipped, with the reason.
 */
public final class ProofMatrix {

    /**
     * One row: a name, where the locks are ({@link Topology#REDIS} or {@link Topology#ETCD}) and the faults the
     * nemesis deals (an inner list is injected at once).
     */
    record Row(String name, String store, List<List<Kind>> faults, Optional<String> skipReason) {

        Row(String name, List<List<Kind>> faults, Optional<String> skipReason) {
            this(name, Topology.REDIS, faults, skipReason);
        }

        static Row of(String name, List<List<Kind>> faults) {
            return new Row(name, faults, Optional.empty());
        }

        /** A row whose locks are on the run's etcd cluster; skipped where there is no etcd binary. */
        static Row etcd(String name, List<List<Kind>> faults) {
            return new Row(name, Topology.ETCD, faults, EtcdServers.unavailableReason());
        }
    }

    /** What a row saw: both runs, or the reason it was skipped. */
    record Outcome(Row row, ProofRun.Result on, ProofRun.Result off) {

        boolean skipped() {
            return on == null;
        }

        /** Fenced: no anomaly at all; unfenced: at least one, or the row proves nothing. */
        boolean holds() {
            return skipped() || (on.findings().anomalyCount() == 0 && off.findings().anomalyCount() > 0);
        }
    }

    private ProofMatrix() {
    }

    /** Every row of the matrix, in table order. */
    static List<Row> rows() {
        Optional<String> noClock = ClockShim.unavailableReason();
        return List.of(
                Row.of("holder pauses (thread past its lease, SIGSTOP of a worker JVM)",
                        List.of(List.of(Kind.PAUSE_THREAD), List.of(Kind.PAUSE_JVM))),
                Row.of("Redis restart, empty (kill, start without persistence)", List.of(List.of(Kind.KILL_RESTART))),
                Row.of("Redis FLUSHALL", List.of(List.of(Kind.FLUSHALL))),
                Row.of("Redis Sentinel failover (master killed, replica promoted)", List.of(List.of(Kind.FAILOVER))),
                new Row("Redis clock steps forward and back (LD_PRELOAD shim)",
                        List.of(List.of(Kind.CLOCK_FORWARD), List.of(Kind.CLOCK_BACK)),
                        noClock.map(reason -> "clock shim unavailable: " + reason)),
                Row.of("PostgreSQL restart mid-run", List.of(List.of(Kind.POSTGRES_RESTART))),
                Row.of("slow or dropping link to Redis (one client process's answers later than a lease)",
                        List.of(List.of(Kind.LATENCY), List.of(Kind.DROP_CONNECTIONS))),
                Row.of("downstream HTTP faults (requests delivered after the client gave up, answers lost, retries)",
                        List.of(List.of(Kind.HTTP_HOLD), List.of(Kind.HTTP_LOSE_ANSWER))),
                Row.of("two at once: holder pause + FLUSHALL, pause + PostgreSQL restart",
                        List.of(List.of(Kind.PAUSE_THREAD, Kind.FLUSHALL), List.of(Kind.PAUSE_JVM, Kind.POSTGRES_RESTART))),
                Row.etcd("etcd: holder pauses (thread past its lease, SIGSTOP of a worker JVM)",
                        List.of(List.of(Kind.PAUSE_THREAD), List.of(Kind.PAUSE_JVM))),
                Row.etcd("etcd: leader killed (kill -9, restarted later), alone and with a holder pause",
                        List.of(List.of(Kind.ETCD_LEADER_KILL), List.of(Kind.ETCD_LEADER_KILL, Kind.PAUSE_THREAD))),
                Row.etcd("etcd: holder's process cut off from every member (delay proxy, longer than a lease)",
                        List.of(List.of(Kind.ETCD_PARTITION))));
    }

    /**
     * {@code -Dproof.duration=60s} per run, {@code -Dproof.rows=1,5} to run some rows only (1-based);
     * exits 1 when a fenced row saw an anomaly or an unfenced row saw none.
     */
    public static void main(String[] args) throws Exception {
        ProofSettings settings = ProofSettings.fromSystemProperties(Duration.ofSeconds(60), 4);
        List<Row> rows = select(rows(), System.getProperty("proof.rows", ""));
        List<Outcome> outcomes = run(settings, rows);
        boolean holds = outcomes.stream().allMatch(Outcome::holds);
        System.out.println(holds ? "MATRIX HOLDS" : "MATRIX FAILED");
        System.exit(holds ? 0 : 1);
    }

    static List<Row> select(List<Row> all, String which) {
        if (which.isBlank()) {
            return all;
        }
        List<Row> chosen = new ArrayList<>();
        for (String n : which.split(",")) {
            int number = Integer.parseInt(n.trim());
            if (number < 1 || number > all.size()) {
                throw new IllegalArgumentException("proof.rows: no row " + number + "; rows are 1 to " + all.size());
            }
            chosen.add(all.get(number - 1));
        }
        return chosen;
    }

    static List<Outcome> run(ProofSettings settings, List<Row> rows) throws Exception {
        Path out = settings.outDir().resolve("matrix");
        Files.createDirectories(out);
        List<Outcome> outcomes = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            Row row = rows.get(i);
            if (row.skipReason().isPresent()) {
                outcomes.add(new Outcome(row, null, null));
                continue;
            }
            Path dir = out.resolve("row-" + (i + 1));
            System.out.println("matrix row " + (i + 1) + ": " + row.name());
            ProofRun.Result on = ProofRun.run(settings, true, row.store(), row.faults(), dir);
            ProofRun.Result off = ProofRun.run(settings, false, row.store(), row.faults(), dir);
            outcomes.add(new Outcome(row, on, off));
            // the rows so far, so that a long matrix cut short still leaves its table
            write(settings, outcomes, out);
        }
        write(settings, outcomes, out);
        return outcomes;
    }

    static void write(ProofSettings settings, List<Outcome> outcomes, Path out) throws IOException {
        String table = markdown(settings, outcomes);
        System.out.println(table);
        Files.writeString(out.resolve("matrix.md"), table);
        ProofChart.matrix(outcomes, out.resolve("matrix.png"));
        List<Map<String, Object>> json = new ArrayList<>();
        for (Outcome o : outcomes) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("fault", o.row().name());
            if (o.skipped()) {
                row.put("skipped", o.row().skipReason().orElse(""));
            } else {
                row.put("fencingOn", counts(o.on()));
                row.put("fencingOff", counts(o.off()));
                row.put("faultsOn", o.on().faults());
            }
            json.add(row);
        }
        Files.writeString(out.resolve("matrix.json"),
                HistoryFile.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(json));
        System.out.println("matrix: " + out.toAbsolutePath().resolve("matrix.md"));
    }

    private static Map<String, Object> counts(ProofRun.Result r) {
        HistoryChecker.Findings f = r.findings();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("operations", f.ops());
        m.put("ok", f.ok());
        m.put("faults", r.faults().size());
        m.put("refusedByFence", r.history().stream().filter(Op::fencedOff).count());
        m.put("staleWritesAdmitted", f.staleAdmitted());
        m.put("lostAcknowledgedWrites", f.lostAcknowledged());
        m.put("duplicateTokens", f.duplicateTokens());
        m.put("ledgerMismatches", f.ledgerMismatches());
        m.put("availability", f.availability());
        return m;
    }

    /** The table: per row and way, operations (acknowledged), faults, stale admitted, acknowledged lost, other anomalies. */
    static String markdown(ProofSettings settings, List<Outcome> outcomes) {
        StringBuilder md = new StringBuilder();
        md.append(String.format(Locale.ROOT, "%d s per run, %d clients, lease %d ms, seed %d%n%n",
                settings.duration().toSeconds(), settings.clients(), settings.leaseMillis(), settings.seed()));
        md.append("| fault | fencing | ops (ok) | faults | refused by a fence | stale admitted | acknowledged lost |"
                + " duplicate tokens, ledger wrong | verdict |\n");
        md.append("|---|---|---|---|---|---|---|---|---|\n");
        for (Outcome o : outcomes) {
            if (o.skipped()) {
                md.append("| ").append(o.row().name()).append(" | – | skipped: ")
                        .append(o.row().skipReason().orElse("")).append(" | | | | | | |\n");
                continue;
            }
            line(md, o.row().name(), o.on(), o.on().findings().anomalyCount() == 0 ? "0 anomalies" : "**FAILED**");
            line(md, "", o.off(), o.off().findings().anomalyCount() > 0 ? "anomalies seen" : "**none seen**");
        }
        return md.toString();
    }

    private static void line(StringBuilder md, String name, ProofRun.Result r, String verdict) {
        HistoryChecker.Findings f = r.findings();
        md.append(String.format(Locale.ROOT, "| %s | %s | %d (%d) | %d | %d | %d | %d | %d, %d | %s |%n", name,
                r.fencing() ? "on" : "off", f.ops(), f.ok(), r.faults().size(),
                r.history().stream().filter(Op::fencedOff).count(), f.staleAdmitted(), f.lostAcknowledged(),
                f.duplicateTokens(), f.ledgerMismatches(), verdict));
    }
}
