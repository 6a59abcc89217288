package io.fenceguard.test.support;

import java.util.Collection;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the JMH benchmarks of one class with the suite's short settings ({@code bench.jmh.forks},
 * {@code bench.jmh.warmup}, {@code bench.jmh.iterations}, {@code bench.jmh.time} in seconds) and
 * prints one line per benchmark under {@code title}, followed by {@code remark} of its name.
 */
public final class JmhRun {

    private JmhRun() {
    }

    public static void printResults(Class<?> benchmarks, String title, Function<String, String> remark)
            throws RunnerException {
        printResults(benchmarks, title, remark, java.util.Map.of());
    }

    /**
     * As {@link #printResults(Class, String, Function)}, followed by the ratio of each benchmark named as a key
     * of {@code anchors} (simple method names) to its anchor, the benchmark named by the value, from this run.
     */
    public static void printResults(Class<?> benchmarks, String title, Function<String, String> remark,
            java.util.Map<String, String> anchors) throws RunnerException {
        long millis = (long) (1000 * Double.parseDouble(System.getProperty("bench.jmh.time", "1")));
        Collection<RunResult> results = new Runner(new OptionsBuilder()
                .include(Pattern.quote(benchmarks.getName()) + "\\.")
                .forks(Integer.getInteger("bench.jmh.forks", 1))
                .warmupIterations(Integer.getInteger("bench.jmh.warmup", 2))
                .warmupTime(TimeValue.milliseconds(millis))
                .measurementIterations(Integer.getInteger("bench.jmh.iterations", 3))
                .measurementTime(TimeValue.milliseconds(millis))
                .shouldFailOnError(true)
                .build()).run();
        System.out.println();
        System.out.println(title);
        for (RunResult r : results) {
            String name = r.getParams().getBenchmark();
            System.out.printf("%-40s %10.1f ± %.1f %s%s%n", name.substring(name.lastIndexOf('.') + 1),
                    r.getPrimaryResult().getScore(), r.getPrimaryResult().getScoreError(),
                    r.getPrimaryResult().getScoreUnit(), remark.apply(name));
        }
        java.util.Map<String, Double> scores = new java.util.HashMap<>();
        for (RunResult r : results) {
            String name = r.getParams().getBenchmark();
            scores.put(name.substring(name.lastIndexOf('.') + 1), r.getPrimaryResult().getScore());
        }
        anchors.forEach((measured, anchor) -> {
            if (scores.containsKey(measured) && scores.containsKey(anchor)) {
                System.out.printf("%-40s %10.2f x %s%n", measured, scores.get(measured) / scores.get(anchor), anchor);
            }
        });
    }
}
