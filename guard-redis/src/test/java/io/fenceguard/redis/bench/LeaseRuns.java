package io.fenceguard.redis.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The samples of {@link LeaseBenchmark}: runs, their latencies and their medians. */
final class LeaseRuns {

    private LeaseRuns() {
    }

    /** Runs of one implementation at one thread count. */
    static final class Result {
        private final List<Run> runs = new ArrayList<>();

        void add(Run run) {
            runs.add(run);
        }

        double[] opsPerSecond() {
            return runs.stream().mapToDouble(Run::opsPerSecond).toArray();
        }

        double medianOpsPerSecond() {
            double[] v = opsPerSecond();
            Arrays.sort(v);
            return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
        }

        double cpuMicrosPerOp() {
            return runs.stream().mapToLong(r -> r.cpuNanos).sum() / 1e3 / runs.stream().mapToLong(Run::ops).sum();
        }

        /** The Redis server's CPU per operation, NaN when it could not be read. */
        double redisCpuMicrosPerOp() {
            if (runs.stream().anyMatch(r -> r.redisCpuNanos < 0)) {
                return Double.NaN;
            }
            return runs.stream().mapToLong(r -> r.redisCpuNanos).sum() / 1e3 / runs.stream().mapToLong(Run::ops).sum();
        }

        long[] allLatencies() {
            return runs.stream().flatMap(r -> r.latencies.stream()).flatMapToLong(Arrays::stream).toArray();
        }
    }

    static final class Run {
        final List<long[]> latencies = new ArrayList<>();
        long elapsedNanos;
        long cpuNanos;
        /** CPU time of the Redis server during the run (INFO cpu), -1 when not read. */
        long redisCpuNanos = -1;

        long ops() {
            return latencies.stream().mapToLong(a -> a.length).sum();
        }

        double opsPerSecond() {
            return ops() * 1e9 / elapsedNanos;
        }
    }

    static final class LongList {
        private long[] values = new long[1 << 14];
        private int size;

        void add(long v) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = v;
        }

        long[] toArray() {
            return Arrays.copyOf(values, size);
        }
    }
}
