package io.fenceguard.http.bench;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.http.FenceHeader;
import io.fenceguard.http.SigningKeys;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * JMH: the per-request CPU cost of the fencing header, without any HTTP around it: strict parse of a
 * signed header, parse + HMAC-SHA256 verification (what the filter does before consulting its store),
 * and signing (what a client adds per outgoing request).
 *
 * <pre>
 * ./mvnw -B -pl guard-http-filter -am -Pbench -DskipTests verify
 *   -Dbench.jmh.forks=1 -Dbench.jmh.warmup=2 -Dbench.jmh.iterations=3 -Dbench.jmh.time=1 (seconds per iteration)
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FenceHeaderBenchmark {

    private final ResourceName resource = ResourceName.of("account:42");
    private final FencingToken token = FencingToken.of(1_795_000_000_000_001L);
    private SigningKeys keys;
    private String signedValue;

    @Setup
    public void setUp() {
        keys = SigningKeys.of(Map.of(
                "k1", "fenceguard-bench-key-one-0123456789abcdef".getBytes(StandardCharsets.UTF_8),
                "k2", "fenceguard-bench-key-two-0123456789abcdef".getBytes(StandardCharsets.UTF_8)), "k1");
        signedValue = keys.header(resource, token).value();
        keys.verify(FenceHeader.parse(signedValue));
    }

    @Benchmark
    public FenceHeader parse() {
        return FenceHeader.parse(signedValue);
    }

    @Benchmark
    public FenceHeader parseAndVerify() {
        FenceHeader header = FenceHeader.parse(signedValue);
        keys.verify(header);
        return header;
    }

    @Benchmark
    public String sign() {
        return keys.header(resource, token).value();
    }

    public static void main(String[] args) throws Exception {
        Collection<RunResult> results = new Runner(new OptionsBuilder()
                .include(Pattern.quote(FenceHeaderBenchmark.class.getName()) + "\\.")
                .forks(Integer.getInteger("bench.jmh.forks", 1))
                .warmupIterations(Integer.getInteger("bench.jmh.warmup", 2))
                .warmupTime(TimeValue.milliseconds(jmhMillis()))
                .measurementIterations(Integer.getInteger("bench.jmh.iterations", 3))
                .measurementTime(TimeValue.milliseconds(jmhMillis()))
                .shouldFailOnError(true)
                .build()).run();
        System.out.println();
        System.out.println("fenceguard HTTP fencing header (JMH, average time per call, signed header)");
        for (RunResult r : results) {
            String name = r.getParams().getBenchmark();
            System.out.printf("%-40s %10.1f ± %.1f %s%n", name.substring(name.lastIndexOf('.') + 1),
                    r.getPrimaryResult().getScore(), r.getPrimaryResult().getScoreError(),
                    r.getPrimaryResult().getScoreUnit());
        }
    }

    private static long jmhMillis() {
        return (long) (1000 * Double.parseDouble(System.getProperty("bench.jmh.time", "1")));
    }
}
