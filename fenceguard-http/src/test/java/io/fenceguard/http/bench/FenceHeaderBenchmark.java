package io.fenceguard.http.bench;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.testsupport.JmhRun;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * JMH: the per-request CPU cost of the fencing header, without any HTTP around it: strict parse of a
 * signed header, parse + HMAC-SHA256 verification (what the filter does before consulting its store),
 * and signing (what a client adds per outgoing request).
 *
 * <pre>
 * ./mvnw -B -pl fenceguard-http -am -Pbench -DskipTests verify
 *   -Dbench.jmh.forks=1 -Dbench.jmh.warmup=2 -Dbench.jmh.iterations=3 -Dbench.jmh.time=1 (seconds per iteration)
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FenceHeaderBenchmark {

    private final Fence fence = new Fence(ResourceName.of("account:42"), FencingToken.of(1_795_000_000_000_001L));
    private SigningKeys keys;
    private String signedValue;

    @Setup
    public void setUp() {
        keys = SigningKeys.of(Map.of(
                "k1", "fenceguard-bench-key-one-0123456789abcdef".getBytes(StandardCharsets.UTF_8),
                "k2", "fenceguard-bench-key-two-0123456789abcdef".getBytes(StandardCharsets.UTF_8)), "k1");
        signedValue = keys.header(fence).value();
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
        return keys.header(fence).value();
    }

    public static void main(String[] args) throws Exception {
        JmhRun.printResults(FenceHeaderBenchmark.class, "fenceguard HTTP fencing header (JMH, average time per call, signed header)",
                name -> "");
    }
}
