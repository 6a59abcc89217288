package io.fenceguard.redis.bench;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.redis.RedisLeaseConfig;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.test.support.RedisProcess;
import io.fenceguard.admission.TokenBound;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.redis.RedisHighWaterStore;
import io.fenceguard.test.support.bench.BenchChart;
import io.fenceguard.test.support.bench.BenchTable;
import io.fenceguard.test.support.bench.ProcessCpu;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * How the cost grows with what one client holds, on a redis-server of its own ({@link RedisProcess}):
 *
 * <ul>
 *   <li>{@code bench.scale.held} leases (10,000 and 100,000) held by one client: renewal script calls per
 *       interval and per second, the client JVM's CPU, Redis commands per second (INFO commandstats), and
 *       memory per lease on both sides (heap after GC; Redis {@code used_memory});</li>
 *   <li>{@code bench.scale.idle} distinct resources (1,000,000) acquired once, released, then left idle:
 *       keys left once the token idle TTL has passed (goal 0) and Redis memory before and after;</li>
 *   <li>with {@code bench.scale.curves=true} (the {@code bench} profile's run), the cost curves, each a picture
 *       ({@link BenchChart}) and rows of the table: acquire + release of a lease and an admission by the Redis
 *       high-water store, 1 thread, over 1, 10^2, 10^4 and 10^6 resources whose keys exist beforehand (written by a
 *       script, so a million costs seconds, not a million grants), ops/s and Redis CPU per operation; and renewal
 *       calls and Redis CPU per renewal interval as the leases one client holds grow from 1 to 10^5 (a lease of
 *       {@code bench.scale.curve-lease-ms}, 20 s: an interval of 6.7 s; a shorter one asks more renewals a second of
 *       10^5 leases than Redis answers on two CPUs shared with the client).</li>
 * </ul>
 *
 * <pre>
 * ./mvnw -B -pl guard-redis -am -Dbench=scale -DskipTests verify
 *   -Dbench.scale.held=10000,100000 -Dbench.scale.idle=1000000 -Dbench.scale.lease-ms=30000 -Dbench.scale.timeout-s=600
 *   -Dbench.scale.curves=false -Dbench.scale.curve-seconds=2 -Dbench.scale.curve-lease-ms=20000
 *   -Dbench.scale.curve-resources=1,100,10000,1000000 -Dbench.scale.curve-held=1,10,100,1000,10000,100000
 * </pre>
 */
public final class ScaleBenchmark {

    private static final int THREADS = 8;

    public static void main(String[] args) {
        if (System.getProperty("bench.timeout-s") == null) {
            System.setProperty("bench.timeout-s", System.getProperty("bench.scale.timeout-s", "600"));
        }
        Benchmarks.runAndExit("scale benchmark", ScaleBenchmark::measureAll);
    }

    static boolean measureAll() throws Exception {
        int[] held = Arrays.stream(System.getProperty("bench.scale.held", "10000,100000").split(","))
                .map(String::trim).filter(v -> !v.isEmpty()).mapToInt(Integer::parseInt).toArray();
        int idle = Integer.getInteger("bench.scale.idle", 1_000_000);
        Duration lease = Duration.ofMillis(Long.getLong("bench.scale.lease-ms", 30_000));
        Duration interval = lease.dividedBy(3);
        try (RedisProcess redis = RedisProcess.start()) {
            System.out.println(Benchmarks.machineLine(redis.uri()));
            Config config = new Config();
            config.useSingleServer().setAddress(redis.uri()).setConnectionPoolSize(16).setConnectionMinimumIdleSize(4)
                    .setTimeout(3_000);
            RedissonClient redisson = Redisson.create(config);
            List<String> rows = new ArrayList<>();
            try {
                for (int n : held) {
                    rows.add(held(redis, redisson, n, lease, interval));
                }
                if (idle > 0) {
                    rows.add(idle(redis, redisson, idle));
                }
                if (Boolean.getBoolean("bench.scale.curves")) {
                    curves(redis, redisson);
                }
            } finally {
                redisson.shutdown();
            }
            System.out.println();
            System.out.println("scale, lease " + lease.toMillis() + " ms, renewal interval " + interval.toMillis() + " ms:");
            rows.forEach(System.out::println);
        }
        return true;
    }

    private static String held(RedisProcess redis, RedissonClient redisson, int n, Duration lease, Duration interval)
            throws Exception {
        redis.flushAll();
        long heapBefore = heapAfterGc();
        long redisBefore = redisUsedMemory(redis);
        RedisLeaseConfig redisConfig = RedisLeaseConfig.builder().keyPrefix("scale:").releaseInBackground(true).build();
        try (LeaseManager manager = LeaseManager.of(RedisLeaseProvider.of(RedissonScriptClient.of(redisson), redisConfig),
                LeaseConfig.builder().leaseTime(lease).renewInterval(interval).build())) {
            long start = System.nanoTime();
            List<Lease> leases = parallel(n, i -> manager.acquire("held-" + i, Duration.ofSeconds(10)));
            double acquireSeconds = (System.nanoTime() - start) / 1e9;
            long heapHeld = heapAfterGc();
            long redisHeld = redisUsedMemory(redis);
            // One renewal interval to settle into the watchdog's phases, then measure two.
            Thread.sleep(interval.toMillis());
            redis.call("CONFIG", "RESETSTAT");
            long cpu0 = ProcessCpu.nanos();
            long t0 = System.nanoTime();
            Thread.sleep(2 * interval.toMillis());
            double seconds = (System.nanoTime() - t0) / 1e9;
            double cpuShare = (ProcessCpu.nanos() - cpu0) / 1e9 / seconds;
            Map<String, Long> stats = commandStats(redis);
            long scriptCalls = stats.getOrDefault("evalsha", 0L) + stats.getOrDefault("eval", 0L);
            long allCommands = stats.entrySet().stream().filter(e -> !e.getKey().equals("info")
                    && !e.getKey().startsWith("config")).mapToLong(Map.Entry::getValue).sum();
            long valid = leases.stream().filter(Lease::isValid).count();
            double intervals = seconds / (interval.toNanos() / 1e9);
            String row = String.format("%,9d held: acquired in %.1f s; renewal calls %.1f per interval (%.1f/s); Redis "
                    + "%.0f commands/s; client CPU %.1f%% of one core; memory per lease: client %.0f B, Redis %.0f B; "
                    + "still valid %d/%d", n, acquireSeconds, scriptCalls / intervals, scriptCalls / seconds,
                    allCommands / seconds, 100 * cpuShare, (heapHeld - heapBefore) / (double) n,
                    (redisHeld - redisBefore) / (double) n, valid, n);
            System.out.println(row);
            BenchTable.row("redis-scale", String.format("renewal calls per interval, %,d held leases", n),
                    scriptCalls / intervals, "calls", "one per lease", scriptCalls / intervals / n, Double.NaN);
            parallel(n, i -> {
                leases.get(i).close();
                return null;
            });
            return row;
        }
    }

    /** The cost curves: per resource count and per held-lease count, each a picture and rows of the table. */
    private static void curves(RedisProcess redis, RedissonClient redisson) throws Exception {
        double seconds = Double.parseDouble(System.getProperty("bench.scale.curve-seconds", "2"));
        int[] resources = ints("bench.scale.curve-resources", "1,100,10000,1000000");
        int[] held = ints("bench.scale.curve-held", "1,10,100,1000,10000,100000");
        Duration lease = Duration.ofMillis(Long.getLong("bench.scale.curve-lease-ms", 20_000));
        BenchChart resourcesChart = BenchChart.named("redis-resources", "Redis, 1 thread: lease acquire + release and"
                + " high-water admission as the resources with keys grow", "resources");
        BenchChart.Panel throughput = resourcesChart.panel("operations/s");
        BenchChart.Panel storeCpu = resourcesChart.panel("Redis CPU µs per operation");
        for (int n : resources) {
            flush(redis);
            // The token counters of n resources, as n grants would leave them.
            prefill(redis, "curve:{c-", "}:seq", n);
            RedisLeaseConfig config = RedisLeaseConfig.builder().keyPrefix("curve:").build();
            double[] lease1;
            try (LeaseManager manager = LeaseManager.of(RedisLeaseProvider.of(RedissonScriptClient.of(redisson), config),
                    LeaseConfig.builder().leaseTime(Duration.ofSeconds(30)).build())) {
                lease1 = timed(redis, n, seconds, i -> manager.acquire("c-" + i, Duration.ofSeconds(10)).close());
            }
            flush(redis);
            // The high-water marks of n resources, below the token presented.
            prefill(redis, "curve-hw:{fg-hw}:c-", "", n);
            RedisHighWaterStore store = RedisHighWaterStore.of(RedissonScriptClient.of(redisson), "curve-hw:",
                    TokenBound.atMost(42));
            double[] admit = timed(redis, n, seconds, i -> {
                if (!store.admit(new Fence(ResourceName.of("c-" + i), FencingToken.of(42))).admitted()) {
                    throw new IllegalStateException("token 42 refused on c-" + i + ": the marks were written as 1");
                }
            });
            for (String[] kind : new String[][] {{"lease acquire+release", "0"}, {"admission (Redis store)", "1"}}) {
                double[] r = kind[1].equals("0") ? lease1 : admit;
                throughput.point(kind[0], n, r[0]);
                storeCpu.point(kind[0], n, r[1]);
                System.out.printf("%,9d resources: %s %.0f ops/s, Redis CPU %.1f µs per operation%n", n, kind[0], r[0],
                        r[1]);
                BenchTable.row("redis-scale", String.format("%s, 1 thread, %,d resources", kind[0], n), r[0], "ops/s",
                        "–", Double.NaN, Double.NaN, r[2], Double.NaN);
                BenchTable.row("redis-scale", String.format("Redis CPU per %s, %,d resources", kind[0], n), r[1], "µs",
                        "–", Double.NaN, Double.NaN);
            }
        }
        resourcesChart.write();
        BenchChart heldChart = BenchChart.named("redis-held", "Redis: renewals as the leases one client holds grow"
                + " (lease " + lease.toMillis() + " ms, renewal interval " + lease.dividedBy(3).toMillis() + " ms)",
                "held leases");
        BenchChart.Panel calls = heldChart.panel("renewal calls per interval");
        BenchChart.Panel renewalCpu = heldChart.panel("Redis CPU ms per interval");
        for (int n : held) {
            double[] r = heldCost(redis, redisson, n, lease);
            calls.point("renewal script calls", n, r[0]);
            renewalCpu.point("Redis CPU", n, r[1]);
            System.out.printf("%,9d held: %.1f renewal calls and %.2f ms of Redis CPU per interval%n", n, r[0], r[1]);
            BenchTable.row("redis-scale", String.format("renewal calls per interval, %,d held leases (lease %d ms)", n,
                    lease.toMillis()), r[0], "calls", "one per lease", r[0] / n, Double.NaN);
            BenchTable.row("redis-scale", String.format("Redis CPU per renewal interval, %,d held leases", n), r[1],
                    "ms", "–", Double.NaN, Double.NaN);
        }
        heldChart.write();
        BenchTable.print();
    }

    /** {renewal calls per interval, Redis CPU ms per interval} of {@code n} leases held by one client. */
    private static double[] heldCost(RedisProcess redis, RedissonClient redisson, int n, Duration lease) throws Exception {
        flush(redis);
        Duration interval = lease.dividedBy(3);
        RedisLeaseConfig config = RedisLeaseConfig.builder().keyPrefix("held:").releaseInBackground(true).build();
        try (LeaseManager manager = LeaseManager.of(RedisLeaseProvider.of(RedissonScriptClient.of(redisson), config),
                LeaseConfig.builder().leaseTime(lease).renewInterval(interval).build())) {
            List<Lease> leases = parallel(n, i -> manager.acquire("h-" + i, Duration.ofSeconds(10)));
            Thread.sleep(interval.toMillis());
            redis.call("CONFIG", "RESETSTAT");
            long cpu0 = redisCpuNanos(redis);
            long t0 = System.nanoTime();
            Thread.sleep(2 * interval.toMillis());
            double intervals = (System.nanoTime() - t0) / (double) interval.toNanos();
            long cpu = redisCpuNanos(redis) - cpu0;
            Map<String, Long> stats = commandStats(redis);
            long scriptCalls = stats.getOrDefault("evalsha", 0L) + stats.getOrDefault("eval", 0L);
            long valid = leases.stream().filter(Lease::isValid).count();
            if (valid < n) {
                System.out.printf("%,d held: only %,d of them still valid after %.1f intervals%n", n, valid, intervals);
            }
            parallel(leases.size(), i -> {
                leases.get(i).close();
                return null;
            });
            return new double[] {scriptCalls / intervals, cpu / 1e6 / intervals};
        }
    }

    interface Operation {
        void run(int resource) throws Exception;
    }

    /** {ops/s, Redis CPU µs per op, client JVM CPU µs per op} of {@code operation} on 1 thread over n resources. */
    private static double[] timed(RedisProcess redis, int n, double seconds, Operation operation) throws Exception {
        java.util.SplittableRandom random = new java.util.SplittableRandom(n);
        long warmupEnd = System.nanoTime() + (long) (0.5e9);
        while (System.nanoTime() < warmupEnd) {
            operation.run(random.nextInt(n));
        }
        long redisCpu = redisCpuNanos(redis);
        long cpu = ProcessCpu.nanos();
        long start = System.nanoTime();
        long end = start + (long) (seconds * 1e9);
        long ops = 0;
        while (System.nanoTime() < end) {
            operation.run(random.nextInt(n));
            ops++;
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        return new double[] {ops / elapsed, (redisCpuNanos(redis) - redisCpu) / 1e3 / ops,
            (ProcessCpu.nanos() - cpu) / 1e3 / ops};
    }

    /** Writes {@code prefix + i + suffix} = 1 for i in 0..n-1 with server-side scripts of 100,000 keys each. */
    private static void prefill(RedisProcess redis, String prefix, String suffix, int n) {
        String script = "for i = tonumber(ARGV[3]), tonumber(ARGV[4]) do redis.call('SET', ARGV[1] .. i .. ARGV[2], '1')"
                + " end return 1";
        for (int from = 0; from < n; from += 100_000) {
            redis.call("EVAL", script, "0", prefix, suffix, Integer.toString(from),
                    Integer.toString(Math.min(n, from + 100_000) - 1));
        }
    }

    /** Empties the server, its memory freed in the background: a million keys take longer than a call may wait. */
    private static void flush(RedisProcess redis) {
        redis.call("FLUSHALL", "ASYNC");
    }

    /** CPU time of the Redis server so far (INFO cpu: user + system). */
    private static long redisCpuNanos(RedisProcess redis) {
        return ProcessCpu.redisServerNanos(String.valueOf(redis.call("INFO", "cpu")));
    }

    private static int[] ints(String property, String fallback) {
        return Arrays.stream(System.getProperty(property, fallback).split(",")).map(String::trim)
                .filter(v -> !v.isEmpty()).mapToInt(Integer::parseInt).toArray();
    }

    private static String idle(RedisProcess redis, RedissonClient redisson, int n) throws Exception {
        redis.flushAll();
        Duration idleTtl = Duration.ofSeconds(5);
        Duration lease = Duration.ofSeconds(2);
        RedisLeaseConfig redisConfig = RedisLeaseConfig.builder().keyPrefix("idle:").lockDelay(Duration.ofSeconds(1))
                .tokenIdleTtl(idleTtl).releaseInBackground(true).build();
        long memoryBefore = redisUsedMemory(redis);
        long start = System.nanoTime();
        long peakKeys;
        try (LeaseManager manager = LeaseManager.of(RedisLeaseProvider.of(RedissonScriptClient.of(redisson), redisConfig),
                LeaseConfig.builder().leaseTime(lease).build())) {
            parallel(n, i -> {
                manager.acquire("r-" + i, Duration.ofSeconds(10)).close();
                return null;
            });
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        peakKeys = (Long) redis.call("DBSIZE");
        long memoryPeak = redisUsedMemory(redis);
        // Idle: the token counters outlive the lock by the idle TTL (longer than lease + lock-delay + 1 s here).
        long waitUntil = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        long keys = peakKeys;
        while (keys > 0 && System.nanoTime() < waitUntil) {
            Thread.sleep(1_000);
            keys = (Long) redis.call("DBSIZE");
        }
        double idleSeconds = (System.nanoTime() - start) / 1e9 - seconds;
        long memoryAfter = redisUsedMemory(redis);
        String row = String.format("%,9d resources acquired once and released in %.1f s (%.0f/s): %,d keys right "
                        + "after (token counters), %,d keys %.0f s later (idle TTL %d s; goal 0); Redis used_memory "
                        + "%.1f MB before, %.1f MB at the peak, %.1f MB after", n, seconds, n / seconds, peakKeys, keys,
                idleSeconds, idleTtl.toSeconds(), memoryBefore / 1e6, memoryPeak / 1e6, memoryAfter / 1e6);
        System.out.println(row);
        BenchTable.row("redis-scale", String.format("keys left by %,d idle resources", n), keys, "keys",
                "0 (goal)", Double.NaN, Double.NaN);
        return row;
    }

    interface Task<T> {
        T run(int i) throws Exception;
    }

    /** Runs {@code task} for 0..n-1 on a few threads; results in order of i. */
    private static <T> List<T> parallel(int n, Task<T> task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            AtomicInteger next = new AtomicInteger();
            @SuppressWarnings("unchecked")
            T[] out = (T[]) new Object[n];
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                futures.add(pool.submit(() -> {
                    for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
                        try {
                            out[i] = task.run(i);
                        } catch (Exception e) {
                            if (failures.size() < 5) {
                                failures.add(e);
                            }
                        }
                    }
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
            if (!failures.isEmpty()) {
                System.out.println("some operations failed, for example: " + failures.peek());
            }
            List<T> list = new ArrayList<>(n);
            for (T t : out) {
                list.add(t);
            }
            list.removeIf(java.util.Objects::isNull);
            return list;
        } finally {
            pool.shutdownNow();
        }
    }

    private static long heapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static long redisUsedMemory(RedisProcess redis) {
        String info = String.valueOf(redis.call("INFO", "memory"));
        return info.lines().filter(l -> l.startsWith("used_memory:")).map(l -> Long.parseLong(l.substring(12).trim()))
                .findFirst().orElse(0L);
    }

    private static Map<String, Long> commandStats(RedisProcess redis) {
        Map<String, Long> calls = new TreeMap<>();
        String stats = String.valueOf(redis.call("INFO", "commandstats"));
        stats.lines().filter(l -> l.startsWith("cmdstat_")).forEach(l -> {
            String name = l.substring(8, l.indexOf(':'));
            String count = l.substring(l.indexOf("calls=") + 6);
            calls.put(name, Long.parseLong(count.substring(0, count.indexOf(','))));
        });
        return calls;
    }
}
