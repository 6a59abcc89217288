package io.fenceguard.test.support.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Rows of the shared benchmark table: every benchmark of one run appends its figures, each with its ratio to its
 * anchor, to the floor (PING for Redis, a bare {@code SELECT 1} for PostgreSQL, the one-call endpoint for a shared
 * store's admission) and, where the benchmark measures it, the application's CPU per operation beside the floor
 * row's, to the Markdown file {@code -Dbench.table} names ({@code target/bench-table.md} of the build's root in the
 * {@code bench} profiles; {@code clean} empties it), and prints the table so far when it ends, so the last benchmark
 * of a run prints every row.
 *
 * <p>With {@code -Dbench.docs=DIR} (relative to the build's root) each print also writes the table so far into
 * {@code DIR/benchmarks.md} between {@value #BEGIN} and {@value #END}, and {@link BenchChart} copies its pictures
 * there: the last benchmark of the run leaves the document holding the whole run.
 */
public final class BenchTable {

    static final String BEGIN = "<!-- bench-table:begin -->";
    static final String END = "<!-- bench-table:end -->";
    static final String HEADER = "| module | measurement | value | unit | anchor | vs anchor | vs floor | CPU µs/op"
            + " | floor's CPU µs/op |\n|---|---|---:|---|---|---:|---:|---:|---:|\n";

    private BenchTable() {
    }

    /** Appends one row; {@code NaN} for a ratio that does not apply. Does nothing without {@code -Dbench.table}. */
    public static void row(String module, String measurement, double value, String unit, String anchor, double vsAnchor,
                    double vsFloor) {
        row(module, measurement, value, unit, anchor, vsAnchor, vsFloor, Double.NaN, Double.NaN);
    }

    /**
     * Appends one row with the application's CPU per operation ({@code cpuMicros}: its process CPU over the
     * operations it answered, the load driver's own threads left out) and the same figure of its floor row
     * ({@code floorCpuMicros}, the one-call row for a shared store's admission); {@code NaN} where not measured.
     */
    public static void row(String module, String measurement, double value, String unit, String anchor, double vsAnchor,
                    double vsFloor, double cpuMicros, double floorCpuMicros) {
        Path path = table();
        if (path == null) {
            return;
        }
        String line = String.format("| %s | %s | %.1f | %s | %s | %s | %s | %s | %s |%n", module, measurement, value,
                unit, anchor, ratio(vsAnchor), ratio(vsFloor), micros(cpuMicros), micros(floorCpuMicros));
        try {
            if (path.getParent() != null) {
                Files.createDirectories(path.getParent());
            }
            if (!Files.exists(path)) {
                Files.writeString(path, HEADER, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            }
            Files.writeString(path, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            System.out.println("could not append to the benchmark table " + path + ": " + e);
        }
    }

    /** Prints the table so far (every row of this run's benchmarks until now), and writes it into the document. */
    public static void print() {
        Path path = table();
        if (path == null || !Files.exists(path)) {
            return;
        }
        try {
            String table = Files.readString(path);
            System.out.printf("%nbenchmark table so far (%s):%n%s", path, table);
            Path docs = docs();
            if (docs != null) {
                writeInto(docs.resolve("benchmarks.md"), table);
            }
        } catch (IOException e) {
            System.out.println("could not read the benchmark table " + path + " or write it into the document: " + e);
        }
    }

    /** The table of this run, or null without {@code -Dbench.table}. */
    static Path table() {
        String file = System.getProperty("bench.table");
        return file == null || file.isBlank() ? null : Path.of(file).toAbsolutePath();
    }

    /** Where the build's pictures go: the directory of the table ({@code target} of the build's root), else null. */
    static Path target() {
        Path table = table();
        return table == null ? null : table.getParent();
    }

    /** The directory {@code -Dbench.docs} names, relative to the build's root (the table's {@code target}'s parent). */
    static Path docs() {
        String docs = System.getProperty("bench.docs");
        Path target = target();
        if (docs == null || docs.isBlank() || target == null || target.getParent() == null) {
            return null;
        }
        return target.getParent().resolve(docs.trim()).normalize();
    }

    /** Replaces what stands between the markers of {@code document} with {@code table} and the run it is from. */
    static void writeInto(Path document, String table) throws IOException {
        String text = Files.readString(document);
        int begin = text.indexOf(BEGIN);
        int end = text.indexOf(END);
        if (begin < 0 || end < begin) {
            System.out.println("no " + BEGIN + " … " + END + " in " + document + ": the table was not written there");
            return;
        }
        String run = String.format("Run of %s UTC: %s %s %s, %d CPUs, %s %s.%n%n", Instant.now().truncatedTo(
                ChronoUnit.MINUTES).toString().replace('T', ' ').replace("Z", ""), System.getProperty("os.name"),
                System.getProperty("os.version"), System.getProperty("os.arch"), Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.vm.name"), System.getProperty("java.version"));
        Files.writeString(document, text.substring(0, begin) + BEGIN + "\n" + run + table + text.substring(end),
                StandardCharsets.UTF_8);
    }

    private static String ratio(double r) {
        return Double.isNaN(r) ? "–" : String.format("%.3g", r);
    }

    private static String micros(double us) {
        return Double.isNaN(us) ? "–" : String.format("%.1f", us);
    }
}
