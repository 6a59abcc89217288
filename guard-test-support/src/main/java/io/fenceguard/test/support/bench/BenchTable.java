package io.fenceguard.test.support.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Rows of the shared benchmark table: every benchmark of one run appends its figures, each with its
 * ratio to its anchor and to the floor (PING for Redis, a bare {@code SELECT 1} for PostgreSQL), to the
 * Markdown file {@code -Dbench.table} names ({@code target/bench-table.md} of the build's root in the
 * {@code bench} profiles; {@code clean} empties it), and prints the table so far when it ends, so the
 * last benchmark of a run prints every row.
 */
public final class BenchTable {

    static final String HEADER = "| module | measurement | value | unit | anchor | vs anchor | vs floor |\n"
            + "|---|---|---:|---|---|---:|---:|\n";

    private BenchTable() {
    }

    /** Appends one row; {@code NaN} for a ratio that does not apply. Does nothing without {@code -Dbench.table}. */
    public static void row(String module, String measurement, double value, String unit, String anchor, double vsAnchor,
                    double vsFloor) {
        String file = System.getProperty("bench.table");
        if (file == null || file.isBlank()) {
            return;
        }
        String line = String.format("| %s | %s | %.1f | %s | %s | %s | %s |%n", module, measurement, value, unit, anchor,
                ratio(vsAnchor), ratio(vsFloor));
        try {
            Path path = Path.of(file);
            if (path.getParent() != null) {
                Files.createDirectories(path.getParent());
            }
            if (!Files.exists(path)) {
                Files.writeString(path, HEADER, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            }
            Files.writeString(path, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            System.out.println("could not append to the benchmark table " + file + ": " + e);
        }
    }

    /** Prints the table so far (every row of this run's benchmarks until now). */
    public static void print() {
        String file = System.getProperty("bench.table");
        if (file == null || file.isBlank() || !Files.exists(Path.of(file))) {
            return;
        }
        try {
            System.out.printf("%nbenchmark table so far (%s):%n%s", file, Files.readString(Path.of(file)));
        } catch (IOException e) {
            System.out.println("could not read the benchmark table " + file + ": " + e);
        }
    }

    private static String ratio(double r) {
        return Double.isNaN(r) ? "–" : String.format("%.3g", r);
    }
}
