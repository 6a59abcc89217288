package io.fenceguard.redis.bench;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.redis.RedisLeaseConfig;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.testsupport.RespClient;
import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Throughput and latency of one lock round (acquire + release) on uncontended resources, against one
 * Redis: fenceguard {@link LeaseManager} acquire + close, Redisson {@link RLock} lock() + unlock() and
 * Redisson {@link RFencedLock} lockAndGetToken() + unlock(), all through the same Redisson client.
 *
 * <p>Each thread cycles over resources of its own, so nothing is contended. The implementations run
 * interleaved in rounds, in a rotating order, after a warm-up; throughput is the median over rounds,
 * latency percentiles are over all measured operations.
 *
 * <p>The floor: before the rounds, {@code redis-benchmark -t ping_mbulk -q} (when on the PATH) measures
 * the raw round-trip rate of the same Redis with one connection per thread; an acquire + release is two
 * round trips, so each implementation's rate is also shown as a share of half the PING rate.
 *
 * <pre>
 * ./mvnw -B -pl guard-redis -am -Pbench -DskipTests verify
 *   env GUARD_TEST_REDIS_URL (default redis://127.0.0.1:6379)
 *   -Dbench.rounds=6 -Dbench.seconds=1.5 -Dbench.warmup=2 -Dbench.threads=1,4 -Dbench.floor.requests=100000
 * </pre>
 */
public final class LeaseBenchmark {

    enum Impl {
        FENCEGUARD("fenceguard LeaseManager"),
        RLOCK("Redisson RLock"),
        FENCED("Redisson RFencedLock");

        final String label;

        Impl(String label) {
            this.label = label;
        }
    }

    private static final int RESOURCES_PER_THREAD = 64;

    private final RedissonClient redisson;
    private final LeaseManager manager;
    private final String prefix;
    private volatile long sink;

    private LeaseBenchmark(RedissonClient redisson, String prefix) {
        this.redisson = redisson;
        this.prefix = prefix;
        this.manager = LeaseManager.of(RedisLeaseProvider.of(redisson,
                RedisLeaseConfig.builder().keyPrefix(prefix + "fg:").build()));
    }

    public static void main(String[] args) throws Exception {
        String url = System.getenv().getOrDefault("GUARD_TEST_REDIS_URL", "redis://127.0.0.1:6379").trim();
        int rounds = Integer.getInteger("bench.rounds", 6);
        double seconds = Double.parseDouble(System.getProperty("bench.seconds", "1.5"));
        double warmup = Double.parseDouble(System.getProperty("bench.warmup", "2"));
        int floorRequests = Integer.getInteger("bench.floor.requests", 100_000);
        int[] threadCounts = Arrays.stream(System.getProperty("bench.threads", "1,4").split(","))
                .mapToInt(s -> Integer.parseInt(s.trim())).toArray();

        Config config = new Config();
        config.useSingleServer().setAddress(url);
        RedissonClient redisson = Redisson.create(config);
        String prefix = "fgbench-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        LeaseBenchmark bench = new LeaseBenchmark(redisson, prefix);
        try {
            System.out.println(machineLine(url));
            System.out.printf("rounds %d x %.1f s per implementation and thread count, warm-up %.1f s each; "
                    + "one operation = acquire + release, uncontended, %d resources per thread%n",
                    rounds, seconds, warmup, RESOURCES_PER_THREAD);
            Map<Integer, Double> floor = floor(url, threadCounts, floorRequests);
            bench.run(rounds, seconds, warmup, threadCounts, floor);
        } finally {
            bench.manager.close();
            long deleted = redisson.getKeys().deleteByPattern(prefix + "*")
                    + redisson.getKeys().deleteByPattern("redisson_lock_token:{" + prefix + "*");
            System.out.println("cleaned up " + deleted + " keys under " + prefix);
            redisson.shutdown();
        }
    }

    /** redis-benchmark's PING requests/s by connection count (= thread count); empty when not available. */
    private static Map<Integer, Double> floor(String url, int[] threadCounts, int requests) {
        Map<Integer, Double> floor = new TreeMap<>();
        java.util.Optional<String> executable = RedisFloor.executable();
        if (executable.isEmpty()) {
            System.out.println("floor: redis-benchmark is not on the PATH; skipped");
            return floor;
        }
        for (int connections : threadCounts) {
            RedisFloor.pingRate(executable.get(), url, connections, requests).ifPresent(rate -> {
                floor.put(connections, rate);
                System.out.printf("floor: redis-benchmark -t ping_mbulk -n %d -c %d: %.0f requests/s%n",
                        requests, connections, rate);
            });
        }
        return floor;
    }

    private void run(int rounds, double seconds, double warmup, int[] threadCounts, Map<Integer, Double> floor)
            throws Exception {
        int maxThreads = Arrays.stream(threadCounts).max().orElse(1);
        ExecutorService pool = Executors.newFixedThreadPool(maxThreads);
        try {
            for (int threads : threadCounts) {
                for (Impl impl : Impl.values()) {
                    measure(pool, impl, threads, warmup);
                }
            }
            Map<Integer, Map<Impl, Result>> results = new TreeMap<>();
            for (int round = 0; round < rounds; round++) {
                for (int threads : threadCounts) {
                    Map<Impl, Result> byImpl = results.computeIfAbsent(threads, t -> new EnumMap<>(Impl.class));
                    for (int i = 0; i < Impl.values().length; i++) {
                        Impl impl = Impl.values()[(i + round) % Impl.values().length];
                        Run run = measure(pool, impl, threads, seconds);
                        byImpl.computeIfAbsent(impl, k -> new Result()).add(run);
                    }
                }
                System.out.printf("round %d/%d done%n", round + 1, rounds);
            }
            print(results, floor);
        } finally {
            pool.shutdownNow();
        }
    }

    /** One timed run: every thread loops over its own resources until the end. */
    private Run measure(ExecutorService pool, Impl impl, int threads, double seconds) throws Exception {
        CyclicBarrier start = new CyclicBarrier(threads);
        long durationNanos = (long) (seconds * 1e9);
        List<Future<long[]>> futures = new ArrayList<>();
        long cpuBefore = processCpuNanos();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            futures.add(pool.submit(() -> {
                String[] names = new String[RESOURCES_PER_THREAD];
                for (int i = 0; i < names.length; i++) {
                    names[i] = "t" + thread + "-r" + i;
                }
                LongList latencies = new LongList();
                start.await();
                long began = System.nanoTime();
                long end = began + durationNanos;
                int i = 0;
                long now = began;
                while (now < end) {
                    String name = names[i++ & (RESOURCES_PER_THREAD - 1)];
                    once(impl, name);
                    long after = System.nanoTime();
                    latencies.add(after - now);
                    now = after;
                }
                latencies.add(now - began); // the last element is the elapsed time of this thread
                return latencies.toArray();
            }));
        }
        Run run = new Run();
        for (Future<long[]> f : futures) {
            long[] samples = f.get();
            run.elapsedNanos = Math.max(run.elapsedNanos, samples[samples.length - 1]);
            run.latencies.add(Arrays.copyOf(samples, samples.length - 1));
        }
        run.cpuNanos = processCpuNanos() - cpuBefore;
        return run;
    }

    /** CPU time of this whole JVM: the client's cost per operation, Netty and Redisson threads included. */
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private void once(Impl impl, String name) {
        switch (impl) {
            case FENCEGUARD -> {
                try (Lease lease = manager.acquire(name, Duration.ofSeconds(10))) {
                    sink += lease.token().value();
                }
            }
            case RLOCK -> {
                RLock lock = redisson.getLock(prefix + "rlock:" + name);
                lock.lock();
                lock.unlock();
            }
            case FENCED -> {
                RFencedLock lock = redisson.getFencedLock(prefix + "fenced:" + name);
                Long token = lock.lockAndGetToken();
                sink += token;
                lock.unlock();
            }
            default -> throw new IllegalStateException();
        }
    }

    private static void print(Map<Integer, Map<Impl, Result>> results, Map<Integer, Double> floor) {
        System.out.println();
        String header = String.format("%-26s %8s %12s %10s %10s %14s %10s", "implementation", "threads", "ops/s",
                "p50 µs", "p99 µs", "JVM CPU µs/op", "vs RLock");
        System.out.println(header);
        System.out.println("-".repeat(header.length()));
        for (Map.Entry<Integer, Map<Impl, Result>> e : results.entrySet()) {
            double rlock = e.getValue().get(Impl.RLOCK).medianOpsPerSecond();
            for (Impl impl : Impl.values()) {
                Result r = e.getValue().get(impl);
                long[] all = r.allLatencies();
                Arrays.sort(all);
                double ops = r.medianOpsPerSecond();
                System.out.printf("%-26s %8d %12.0f %10.1f %10.1f %14.1f %10.2f%n", impl.label, e.getKey(), ops,
                        percentile(all, 0.50) / 1e3, percentile(all, 0.99) / 1e3, r.cpuMicrosPerOp(), ops / rlock);
            }
        }
        System.out.println();
        for (Map.Entry<Integer, Map<Impl, Result>> e : results.entrySet()) {
            double ratio = e.getValue().get(Impl.FENCEGUARD).medianOpsPerSecond()
                    / e.getValue().get(Impl.RLOCK).medianOpsPerSecond();
            System.out.printf("fenceguard / RLock throughput, %d thread%s: %.2f (goal >= 1.00)%s%n", e.getKey(),
                    e.getKey() == 1 ? "" : "s", ratio, ratio >= 1.0 ? "" : "  BELOW GOAL");
        }
        System.out.println();
        if (floor.isEmpty()) {
            System.out.println("floor: no redis-benchmark figures (see above)");
        }
        for (Map.Entry<Integer, Double> f : floor.entrySet()) {
            Map<Impl, Result> byImpl = results.get(f.getKey());
            if (byImpl == null) {
                continue;
            }
            double ceiling = f.getValue() / 2; // acquire + release = 2 round trips
            System.out.printf("floor, %d connection%s: PING %.0f/s, so at most %.0f acquire+release/s; reached:",
                    f.getKey(), f.getKey() == 1 ? "" : "s", f.getValue(), ceiling);
            for (Impl impl : Impl.values()) {
                System.out.printf(" %s %.2f", impl.label, byImpl.get(impl).medianOpsPerSecond() / ceiling);
            }
            System.out.println();
        }
        System.out.println("per-round ops/s (min..max):");
        for (Map.Entry<Integer, Map<Impl, Result>> e : results.entrySet()) {
            for (Impl impl : Impl.values()) {
                double[] perRound = e.getValue().get(impl).opsPerSecond();
                System.out.printf("  %-26s %d thread(s): %.0f .. %.0f%n", impl.label, e.getKey(),
                        Arrays.stream(perRound).min().orElse(0), Arrays.stream(perRound).max().orElse(0));
            }
        }
    }

    private static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int index = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    static String machineLine(String url) {
        String redisVersion = "?";
        try {
            URI uri = URI.create(url);
            try (RespClient client = new RespClient(uri.getHost(), uri.getPort() > 0 ? uri.getPort() : 6379)) {
                redisVersion = String.valueOf(client.call("INFO", "server")).lines()
                        .filter(l -> l.startsWith("redis_version:")).map(l -> l.substring(14).trim())
                        .findFirst().orElse("?");
            }
        } catch (RuntimeException e) {
            redisVersion = "? (" + e.getMessage() + ")";
        }
        return String.format("machine: %s %s %s, %d cpus, %s %s | Redis %s at %s | Redisson %s",
                System.getProperty("os.name"), System.getProperty("os.version"), System.getProperty("os.arch"),
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.name"),
                System.getProperty("java.version"), redisVersion, url, redissonVersion());
    }

    private static String redissonVersion() {
        try (InputStream in = Redisson.class.getResourceAsStream("/META-INF/maven/org.redisson/redisson/pom.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                return p.getProperty("version", "?");
            }
        } catch (java.io.IOException ignored) {
            // fall through
        }
        String v = Redisson.class.getPackage().getImplementationVersion();
        return v != null ? v : "?";
    }

    /** Runs of one implementation at one thread count. */
    private static final class Result {
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

        long[] allLatencies() {
            return runs.stream().flatMap(r -> r.latencies.stream()).flatMapToLong(Arrays::stream).toArray();
        }
    }

    private static final class Run {
        final List<long[]> latencies = new ArrayList<>();
        long elapsedNanos;
        long cpuNanos;

        long ops() {
            return latencies.stream().mapToLong(a -> a.length).sum();
        }

        double opsPerSecond() {
            return ops() * 1e9 / elapsedNanos;
        }
    }

    private static final class LongList {
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
