package io.fenceguard.test.support.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * A plain harness for "acquire + release, uncontended" of a lease provider against its anchor (the lock
 * its store is usually used through): the implementations run one after the other in rounds, in a
 * rotating order, after a warm-up; throughput is the median over rounds, latency percentiles are over
 * every measured operation. It prints the figures and the ratio to the anchor in the same run and ends
 * the JVM (status 1 when something failed), so a stuck client never holds up the build.
 *
 * <p>Settings: {@code -Dbench.rounds} (default 5), {@code -Dbench.seconds} per round (default 1.5),
 * {@code -Dbench.warmup} seconds (default 1.5).
 */
public final class PairedLockBenchmark {

    /** One acquire + release of {@code resource}; each call uses a resource of the thread's own. */
    @FunctionalInterface
    public interface LockRound {
        void run(String resource) throws Exception;
    }

    private final String title;
    private final Map<String, LockRound> implementations = new LinkedHashMap<>();
    private String anchor;

    private PairedLockBenchmark(String title) {
        this.title = title;
    }

    public static PairedLockBenchmark named(String title) {
        return new PairedLockBenchmark(title);
    }

    public PairedLockBenchmark measure(String label, LockRound round) {
        implementations.put(label, round);
        return this;
    }

    /** The implementation the others are compared to. */
    public PairedLockBenchmark anchor(String label, LockRound round) {
        anchor = label;
        return measure(label, round);
    }

    /** Runs a benchmark's body and ends the JVM whatever happens: status 0 when it measured everything. */
    public static void runAndExit(String name, Callable<Boolean> body) {
        boolean complete;
        try {
            complete = body.call();
        } catch (Throwable e) {
            System.out.println(name + " FAILED: " + e);
            e.printStackTrace(System.out);
            complete = false;
        }
        System.out.flush();
        System.exit(complete ? 0 : 1);
    }

    /** Measures every implementation; returns false when one failed (it is reported and left out). */
    public boolean run() {
        int rounds = Integer.getInteger("bench.rounds", 5);
        double seconds = Double.parseDouble(System.getProperty("bench.seconds", "1.5"));
        double warmup = Double.parseDouble(System.getProperty("bench.warmup", "1.5"));
        System.out.printf("%s: %d rounds x %.1f s per implementation, warm-up %.1f s each; one operation = acquire"
                + " + release, 1 thread, uncontended (a resource per operation, cycling over 64)%n", title, rounds,
                seconds, warmup);
        System.out.printf("machine: %s %s, %d cpus, %s %s%n", System.getProperty("os.name"), System.getProperty("os.arch"),
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.name"),
                System.getProperty("java.version"));
        List<String> labels = new ArrayList<>(implementations.keySet());
        Map<String, Throwable> failed = new LinkedHashMap<>();
        Map<String, List<Double>> rates = new LinkedHashMap<>();
        Map<String, List<long[]>> latencies = new LinkedHashMap<>();
        for (String label : labels) {
            timed(label, warmup, failed);
        }
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < labels.size(); i++) {
                String label = labels.get((i + round) % labels.size());
                long[] samples = timed(label, seconds, failed);
                if (samples != null) {
                    rates.computeIfAbsent(label, k -> new ArrayList<>()).add(samples.length / seconds);
                    latencies.computeIfAbsent(label, k -> new ArrayList<>()).add(samples);
                }
            }
        }
        print(labels, rates, latencies, failed);
        return failed.isEmpty();
    }

    /** Latencies of the operations done in {@code seconds}, or null when the implementation failed. */
    private long[] timed(String label, double seconds, Map<String, Throwable> failed) {
        if (failed.containsKey(label)) {
            return null;
        }
        LockRound round = implementations.get(label);
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long[] samples = new long[1 << 16];
        int n = 0;
        try {
            long now = System.nanoTime();
            while (now < end) {
                round.run("bench-r" + (n & 63));
                long after = System.nanoTime();
                if (n == samples.length) {
                    samples = Arrays.copyOf(samples, n * 2);
                }
                samples[n++] = after - now;
                now = after;
            }
        } catch (Exception e) {
            failed.put(label, e);
            System.out.println(label + " FAILED: " + e);
            return null;
        }
        return Arrays.copyOf(samples, n);
    }

    private void print(List<String> labels, Map<String, List<Double>> rates, Map<String, List<long[]>> latencies,
                       Map<String, Throwable> failed) {
        System.out.println();
        String header = String.format("%-44s %10s %10s %10s %10s", "implementation", "ops/s", "p50 µs", "p99 µs",
                "vs " + (anchor == null ? "-" : "anchor"));
        System.out.println(header);
        System.out.println("-".repeat(header.length()));
        double anchorRate = anchor != null && rates.containsKey(anchor) ? median(rates.get(anchor)) : Double.NaN;
        for (String label : labels) {
            if (!rates.containsKey(label)) {
                System.out.printf("%-44s not measured: %s%n", label, failed.get(label));
                continue;
            }
            long[] all = latencies.get(label).stream().flatMapToLong(Arrays::stream).sorted().toArray();
            double rate = median(rates.get(label));
            System.out.printf("%-44s %10.0f %10.1f %10.1f %10.2f%n", label, rate, percentile(all, 0.5) / 1e3,
                    percentile(all, 0.99) / 1e3, rate / anchorRate);
            BenchTable.row(title, label + ", acquire+release, 1 thread", rate, "ops/s", anchor == null ? "–" : anchor,
                    label.equals(anchor) ? Double.NaN : rate / anchorRate, Double.NaN);
        }
        if (anchor != null) {
            System.out.println("(ratio = ops/s over the anchor's, " + anchor + ")");
        }
        BenchTable.print();
    }

    private static double median(List<Double> values) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int m = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
    }

    private static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int index = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }
}
