package io.fenceguard.redis.bench;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import io.fenceguard.redis.ConnectionsOnlyDataSource;
import io.fenceguard.redis.JdbcTokenEpochSource;
import io.fenceguard.redis.RedisLeaseConfig;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.redis.internal.LeaseKeys;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.ScratchSpace;
import io.fenceguard.test.support.TestServers;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * What the durable epoch costs, against the clock floor as anchor, in the same run on the same Redis:
 * <ol>
 *   <li>the common path, acquire + release on uncontended resources whose counter exists (goal: no
 *       measurable difference; both are one script per acquire and one per release);</li>
 *   <li>the first acquire after a loss: the resource's counter is deleted (untimed) before each timed
 *       acquire + release, so the durable epoch pays its claim, a {@code nextval} on PostgreSQL and the
 *       install, while the clock floor pays nothing extra.</li>
 * </ol>
 * Modes run interleaved in rounds, in a rotating order, after a warm-up.
 *
 * <pre>
 * ./mvnw -B -pl guard-redis -am -Dbench=redis -DskipTests verify
 *   env GUARD_TEST_REDIS_URL, GUARD_TEST_POSTGRES_URL (+ _USER, _PASSWORD)
 *   -Dbench.epoch.rounds=6 -Dbench.epoch.seconds=1.5 -Dbench.epoch.threads=1,4 -Dbench.epoch.loss-ops=400
 * </pre>
 */
public final class EpochBenchmark {

    enum Mode {
        CLOCK("clock floor"),
        EPOCH("durable epoch (PostgreSQL)");

        final String label;

        Mode(String label) {
            this.label = label;
        }
    }

    private static final int RESOURCES_PER_THREAD = 64;

    private final RedissonClient redisson;
    private final Map<Mode, LeaseManager> managers = new EnumMap<>(Mode.class);
    private final Map<Mode, RedisLeaseConfig> configs = new EnumMap<>(Mode.class);
    private volatile long sink;

    private EpochBenchmark(RedissonClient redisson, String prefix, DataSource database, String sequence) {
        this.redisson = redisson;
        configs.put(Mode.CLOCK, RedisLeaseConfig.builder().keyPrefix(prefix + "clock:").build());
        configs.put(Mode.EPOCH, RedisLeaseConfig.builder().keyPrefix(prefix + "epoch:")
                .tokenEpochSource(JdbcTokenEpochSource.of(database, sequence, Duration.ofSeconds(5))).build());
        configs.forEach((mode, config) -> managers.put(mode, LeaseManager.of(RedisLeaseProvider.of(RedissonScriptClient.of(redisson), config))));
    }

    public static void main(String[] args) {
        Benchmarks.runAndExit("epoch benchmark", EpochBenchmark::measureAll);
    }

    private static boolean measureAll() throws Exception {
        String url = System.getenv().getOrDefault("GUARD_TEST_REDIS_URL", "redis://127.0.0.1:6379").trim();
        int rounds = Integer.getInteger("bench.epoch.rounds", 6);
        double seconds = Double.parseDouble(System.getProperty("bench.epoch.seconds", "1.5"));
        int lossOps = Integer.getInteger("bench.epoch.loss-ops", 400);
        int[] threadCounts = Arrays.stream(System.getProperty("bench.epoch.threads", "1,4").split(","))
                .mapToInt(s -> Integer.parseInt(s.trim())).toArray();
        System.out.println(Benchmarks.machineLine(url));
        JdbcEndpoint pg = TestServers.postgres();
        System.out.println("PostgreSQL at " + pg.url());
        Config config = new Config();
        config.useSingleServer().setAddress(url);
        RedissonClient redisson = Redisson.create(config);
        String prefix = "fgbench-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        ScratchSpace space = ScratchSpace.create(pg, "fg_epoch_bench");
        Connection connection = DriverManager.getConnection(space.jdbcUrl(), pg.user(), pg.password());
        try {
            EpochBenchmark bench = new EpochBenchmark(redisson, prefix, oneConnection(connection),
                    space.schema() + ".fenceguard_token_epoch");
            System.out.printf("rounds %d x %.1f s per mode and thread count; one operation = acquire + release, "
                    + "uncontended, %d resources per thread; loss path %d operations per mode and round%n",
                    rounds, seconds, RESOURCES_PER_THREAD, lossOps);
            return bench.run(rounds, seconds, threadCounts, lossOps);
        } finally {
            try {
                redisson.getKeys().deleteByPattern(prefix + "*");
            } catch (RuntimeException e) {
                System.out.println("could not clean up the keys under " + prefix + ": " + e);
            }
            redisson.shutdown();
            connection.close();
            space.close();
        }
    }

    private boolean run(int rounds, double seconds, int[] threadCounts, int lossOps) throws Exception {
        int maxThreads = Arrays.stream(threadCounts).max().orElse(1);
        ExecutorService pool = Executors.newFixedThreadPool(maxThreads, r -> {
            Thread t = new Thread(r, "epoch-bench");
            t.setDaemon(true);
            return t;
        });
        Map<Integer, Map<Mode, LeaseRuns.Result>> common = new java.util.TreeMap<>();
        Map<Mode, List<Long>> loss = new EnumMap<>(Mode.class);
        try {
            for (int threads : threadCounts) {
                for (Mode mode : Mode.values()) {
                    measure(pool, mode, threads, 1.0);
                }
            }
            for (Mode mode : Mode.values()) {
                lossPath(mode, 50);
            }
            for (int round = 0; round < rounds; round++) {
                for (int threads : threadCounts) {
                    Map<Mode, LeaseRuns.Result> byMode = common.computeIfAbsent(threads, t -> new EnumMap<>(Mode.class));
                    for (int i = 0; i < Mode.values().length; i++) {
                        Mode mode = Mode.values()[(i + round) % Mode.values().length];
                        byMode.computeIfAbsent(mode, k -> new LeaseRuns.Result()).add(measure(pool, mode, threads, seconds));
                    }
                }
                for (int i = 0; i < Mode.values().length; i++) {
                    Mode mode = Mode.values()[(i + round) % Mode.values().length];
                    loss.computeIfAbsent(mode, k -> new ArrayList<>()).addAll(lossPath(mode, lossOps));
                }
                System.out.printf("round %d/%d done%n", round + 1, rounds);
            }
        } finally {
            pool.shutdownNow();
            managers.values().forEach(LeaseManager::close);
        }
        print(common, loss);
        return true;
    }

    private LeaseRuns.Run measure(ExecutorService pool, Mode mode, int threads, double seconds) throws Exception {
        LeaseManager manager = managers.get(mode);
        CyclicBarrier start = new CyclicBarrier(threads);
        long durationNanos = (long) (seconds * 1e9);
        List<Future<long[]>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            futures.add(pool.submit(() -> {
                String[] names = new String[RESOURCES_PER_THREAD];
                for (int i = 0; i < names.length; i++) {
                    names[i] = "t" + thread + "-r" + i;
                }
                LeaseRuns.LongList latencies = new LeaseRuns.LongList();
                start.await();
                long began = System.nanoTime();
                long end = began + durationNanos;
                int i = 0;
                long now = began;
                while (now < end) {
                    try (Lease lease = manager.acquire(names[i++ & (RESOURCES_PER_THREAD - 1)], Duration.ofSeconds(10))) {
                        sink += lease.token().value();
                    }
                    long after = System.nanoTime();
                    latencies.add(after - now);
                    now = after;
                }
                latencies.add(now - began);
                return latencies.toArray();
            }));
        }
        LeaseRuns.Run run = new LeaseRuns.Run();
        for (Future<long[]> f : futures) {
            long[] samples = f.get(durationNanos + TimeUnit.SECONDS.toNanos(60), TimeUnit.NANOSECONDS);
            run.elapsedNanos = Math.max(run.elapsedNanos, samples[samples.length - 1]);
            run.latencies.add(Arrays.copyOf(samples, samples.length - 1));
        }
        return run;
    }

    /** Acquire + release right after the resource's counter was deleted (untimed), as after a loss. */
    private List<Long> lossPath(Mode mode, int ops) {
        LeaseManager manager = managers.get(mode);
        String prefix = configs.get(mode).keyPrefix();
        List<Long> latencies = new ArrayList<>(ops);
        for (int i = 0; i < ops; i++) {
            String name = "loss-" + (i & 63);
            LeaseKeys keys = LeaseKeys.of(prefix, ResourceName.of(name));
            redisson.getKeys().delete(keys.seq(), keys.epochSeq());
            long began = System.nanoTime();
            try (Lease lease = manager.acquire(name, Duration.ofSeconds(10))) {
                sink += lease.token().value();
            }
            latencies.add(System.nanoTime() - began);
        }
        return latencies;
    }

    private static void print(Map<Integer, Map<Mode, LeaseRuns.Result>> common, Map<Mode, List<Long>> loss) {
        System.out.println();
        String header = String.format("%-30s %8s %12s %10s %10s %12s", "common path", "threads", "ops/s", "p50 µs",
                "p99 µs", "vs clock");
        System.out.println(header);
        System.out.println("-".repeat(header.length()));
        common.forEach((threads, byMode) -> {
            LeaseRuns.Result clock = byMode.get(Mode.CLOCK);
            for (Mode mode : Mode.values()) {
                LeaseRuns.Result r = byMode.get(mode);
                long[] all = r.allLatencies();
                Arrays.sort(all);
                double[] perRound = r.opsPerSecond();
                System.out.printf("%-30s %8d %12.0f %10.1f %10.1f %12.3f   (rounds %.0f .. %.0f)%n", mode.label, threads,
                        r.medianOpsPerSecond(), Benchmarks.percentile(all, 0.5) / 1e3,
                        Benchmarks.percentile(all, 0.99) / 1e3, r.medianOpsPerSecond() / clock.medianOpsPerSecond(),
                        Arrays.stream(perRound).min().orElse(0), Arrays.stream(perRound).max().orElse(0));
                if (mode != Mode.CLOCK) {
                    io.fenceguard.test.support.bench.BenchTable.row("redis", mode.label + ", acquire+release, " + threads
                            + " thread(s)", r.medianOpsPerSecond(), "ops/s", "clock floor",
                            r.medianOpsPerSecond() / clock.medianOpsPerSecond(), Double.NaN);
                }
            }
        });
        System.out.println();
        String lossHeader = String.format("%-30s %8s %10s %10s %10s", "first acquire after a loss", "ops", "p50 µs",
                "p99 µs", "vs clock");
        System.out.println(lossHeader);
        System.out.println("-".repeat(lossHeader.length()));
        long clockP50 = p(loss.get(Mode.CLOCK), 0.5);
        for (Mode mode : Mode.values()) {
            List<Long> l = loss.get(mode);
            System.out.printf("%-30s %8d %10.1f %10.1f %10.2f%n", mode.label, l.size(), p(l, 0.5) / 1e3, p(l, 0.99) / 1e3,
                    (double) p(l, 0.5) / clockP50);
            if (mode != Mode.CLOCK) {
                io.fenceguard.test.support.bench.BenchTable.row("redis", mode.label + ", first acquire+release after a loss, p50",
                        p(l, 0.5) / 1e3, "µs", "clock floor", (double) p(l, 0.5) / clockP50, Double.NaN);
            }
        }
        System.out.println("(loss path: acquire + release; the durable epoch adds a claim round trip, a PostgreSQL "
                + "nextval and the install round trip)");
    }

    private static long p(List<Long> values, double q) {
        long[] sorted = values.stream().mapToLong(Long::longValue).sorted().toArray();
        return Benchmarks.percentile(sorted, q);
    }

    /** One open connection for every request, as a pool would hand out; closing a handle keeps it open. */
    private static DataSource oneConnection(Connection connection) {
        Connection handle = (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("close")) {
                        return null;
                    }
                    synchronized (connection) {
                        try {
                            return method.invoke(connection, args);
                        } catch (java.lang.reflect.InvocationTargetException e) {
                            throw e.getCause();
                        }
                    }
                });
        return new ConnectionsOnlyDataSource() {
            @Override
            public Connection getConnection() {
                return handle;
            }
        };
    }
}
