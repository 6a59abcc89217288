package io.fenceguard.redis.bench;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.redis.RedisLeaseConfig;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.test.support.RedisProcess;
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
 *       keys left once the token idle TTL has passed (goal 0) and Redis memory before and after.</li>
 * </ul>
 *
 * <pre>
 * ./mvnw -B -pl guard-redis -am -Dbench=scale -DskipTests verify
 *   -Dbench.scale.held=10000,100000 -Dbench.scale.idle=1000000 -Dbench.scale.lease-ms=30000 -Dbench.scale.timeout-s=600
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
