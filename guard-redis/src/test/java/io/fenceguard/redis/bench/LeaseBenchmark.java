package io.fenceguard.redis.bench;

import io.fenceguard.redis.jedis.JedisScriptClient;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.redis.springdata.SpringDataRedisScriptClient;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.redis.RedisLeaseConfig;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.redis.bench.LeaseRuns.LongList;
import io.fenceguard.redis.bench.LeaseRuns.Result;
import io.fenceguard.redis.bench.LeaseRuns.Run;
import io.fenceguard.redis.internal.LeaseScriptTexts;
import io.fenceguard.test.support.bench.BenchTable;
import io.fenceguard.test.support.bench.ProcessCpu;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;

/**
 * Throughput and latency of one lock round (acquire + release) on uncontended resources, against one
 * Redis: fenceguard {@link LeaseManager} acquire + close, Redisson {@link RLock} lock() + unlock() and
 * Redisson {@link RFencedLock} lockAndGetToken() + unlock(), all through the same Redisson client; and fenceguard
 * through a Jedis pool and through a Spring Data Redis {@code LettuceConnectionFactory}.
 *
 * <p>Each lease path is also held against its client library alone: that library's own client (a Redisson client, a
 * Jedis pool, Lettuce's {@code RedisClient}; no Spring, no fenceguard) sending the path's own commands, the
 * provider's acquire script and its release script by EVALSHA, what that client itself costs. The Redisson paths
 * (plain and bg release) against Redisson alone, the Jedis paths against Jedis alone, the Lettuce paths against
 * Lettuce alone ({@link Impl#clientAlone()}): an "against its client alone" row each, with the client-alone CPU beside
 * the path's; the goal is at least 0.95 of it.
 *
 * <p>Each thread cycles over resources of its own, so nothing is contended. The implementations run
 * interleaved in rounds, in a rotating order, after a warm-up; throughput is the median over rounds,
 * latency percentiles are over all measured operations.
 *
 * <p>The floor: before the rounds, {@code redis-benchmark -t ping_mbulk -q} (when on the PATH) measures
 * the raw round-trip rate of the same Redis with one connection per thread; an acquire + release is two
 * round trips, so each implementation's rate is also shown as a share of half the PING rate. With each reading,
 * redis-benchmark also runs the provider's acquire script: with a PING for the release, the script anchor says what
 * a C client gets from this lock's own server work.
 *
 * <pre>
 * ./mvnw -B -pl guard-redis -am -Pbench -DskipTests verify
 *   env GUARD_TEST_REDIS_URL (default redis://127.0.0.1:6379)
 *   -Dbench.rounds=6 -Dbench.seconds=1.5 -Dbench.warmup=2 -Dbench.threads=1,4 -Dbench.floor.requests=100000
 *   -Dbench.impls=FENCEGUARD_JEDIS,RLOCK (default: all of {@link Impl})
 * </pre>
 */
public final class LeaseBenchmark {

    enum Impl {
        FENCEGUARD("fenceguard LeaseManager"),
        FENCEGUARD_BG("fenceguard, bg release"),
        FENCEGUARD_JEDIS("fenceguard on Jedis"),
        FENCEGUARD_JEDIS_BG("fenceguard on Jedis, bg release"),
        FENCEGUARD_LETTUCE("fenceguard on Lettuce (Spring)"),
        FENCEGUARD_LETTUCE_BG("fenceguard on Lettuce, bg release"),
        /** The path's own commands (acquire script, release script) from Lettuce's sync API: the client's share. */
        LETTUCE_ALONE("Lettuce alone, the path's commands"),
        /** The same from a Jedis pool, each command on a connection of its own borrowing, on the caller's thread. */
        JEDIS_ALONE("Jedis alone, the path's commands"),
        /** The same through Redisson's own API, synchronously: {@code RScript.evalSha} of each script. */
        REDISSON_ALONE("Redisson alone, the path's commands"),
        RLOCK("Redisson RLock"),
        FENCED("Redisson RFencedLock");

        final String label;

        Impl(String label) {
            this.label = label;
        }

        /** The client library sending the path's commands alone, which this lease path is held against; or null. */
        Impl clientAlone() {
            return switch (this) {
                case FENCEGUARD, FENCEGUARD_BG -> REDISSON_ALONE;
                case FENCEGUARD_JEDIS, FENCEGUARD_JEDIS_BG -> JEDIS_ALONE;
                case FENCEGUARD_LETTUCE, FENCEGUARD_LETTUCE_BG -> LETTUCE_ALONE;
                default -> null;
            };
        }
    }

    private static final int RESOURCES_PER_THREAD = 64;
    /** What each lease path should reach of its client library sending the same commands alone. */
    private static final double CLIENT_ALONE_GOAL = 0.95;
    /**
     * The acquire script's arguments for a client alone: a holder of its own, a lease of 10 s (released at once, as
     * the path's), no lock-delay; then the release script with that holder, as the path sends them.
     */
    private static final List<String> ALONE_ACQUIRE_ARGS = List.of("client-alone", "10000", "0", "10000");
    /** The implementations to measure: all by default, or those named in {@code -Dbench.impls} (e.g. to profile one). */
    private static final Impl[] IMPLS = System.getProperty("bench.impls", "").isBlank() ? Impl.values()
            : Arrays.stream(System.getProperty("bench.impls").split(",")).map(String::trim).map(Impl::valueOf)
                    .toArray(Impl[]::new);

    private final RedissonClient redisson;
    private final LeaseManager manager;
    /** The same, with {@code releaseInBackground}: a release returns once sent. */
    private final LeaseManager bgManager;
    /** The same two on a Jedis pool: calls on the caller's thread. */
    private final JedisPool jedis;
    private final LeaseManager jedisManager;
    private final LeaseManager jedisBgManager;
    /** The same two on a Spring Data Redis LettuceConnectionFactory: Lettuce's async API on its shared connection. */
    private final LeaseManager lettuceManager;
    private final LeaseManager lettuceBgManager;
    /** Lettuce without Spring or fenceguard, one shared connection as Spring's factory has, and the acquire script. */
    private RedisClient lettuceAloneClient;
    private StatefulRedisConnection<String, String> lettuceAloneConnection;
    private RedisCommands<String, String> lettuceAlone;
    /** Jedis without fenceguard: a pool of its own with the fenceguard-on-Jedis pool's settings. */
    private JedisPool jedisAlone;
    /** Redisson without fenceguard: a client of its own with the Redisson paths' config, its script API and node. */
    private RedissonClient redissonAloneClient;
    private RScript redissonAloneScript;
    /** The provider's acquire script's digest, loaded once: the server's script cache serves every client. */
    private String acquireSha;
    private String releaseSha;
    private final String prefix;
    private volatile long sink;

    private LeaseBenchmark(RedissonClient redisson, JedisPool jedis, LettuceConnectionFactory lettuce, String prefix) {
        this.redisson = redisson;
        this.jedis = jedis;
        this.lettuceManager = LeaseManager.of(RedisLeaseProvider.of(SpringDataRedisScriptClient.of(lettuce),
                RedisLeaseConfig.builder().keyPrefix(prefix + "fgl:").build()));
        this.lettuceBgManager = LeaseManager.of(RedisLeaseProvider.of(SpringDataRedisScriptClient.of(lettuce),
                RedisLeaseConfig.builder().keyPrefix(prefix + "fglbg:").releaseInBackground(true).build()));
        this.jedisManager = LeaseManager.of(RedisLeaseProvider.of(JedisScriptClient.of(jedis),
                RedisLeaseConfig.builder().keyPrefix(prefix + "fgj:").build()));
        this.jedisBgManager = LeaseManager.of(RedisLeaseProvider.of(JedisScriptClient.of(jedis),
                RedisLeaseConfig.builder().keyPrefix(prefix + "fgjbg:").releaseInBackground(true).build()));
        this.prefix = prefix;
        this.manager = LeaseManager.of(RedisLeaseProvider.of(RedissonScriptClient.of(redisson),
                RedisLeaseConfig.builder().keyPrefix(prefix + "fg:").build()));
        this.bgManager = LeaseManager.of(RedisLeaseProvider.of(RedissonScriptClient.of(redisson),
                RedisLeaseConfig.builder().keyPrefix(prefix + "fgbg:").releaseInBackground(true).build()));
    }

    public static void main(String[] args) {
        Benchmarks.runAndExit("lease benchmark", LeaseBenchmark::measureAll);
    }

    /** Whether every implementation was measured. */
    private static boolean measureAll() throws Exception {
        String url = System.getenv().getOrDefault("GUARD_TEST_REDIS_URL", "redis://127.0.0.1:6379").trim();
        int rounds = Integer.getInteger("bench.rounds", 6);
        double seconds = Double.parseDouble(System.getProperty("bench.seconds", "1.5"));
        double warmup = Double.parseDouble(System.getProperty("bench.warmup", "2"));
        int floorRequests = Integer.getInteger("bench.floor.requests", 100_000);
        int[] threadCounts = Arrays.stream(System.getProperty("bench.threads", "1,4").split(","))
                .mapToInt(s -> Integer.parseInt(s.trim())).toArray();

        System.out.println(Benchmarks.machineLine(url));
        RedissonClient redisson = Redisson.create(redissonConfig(url));
        String prefix = "fgbench-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        JedisPoolConfig jedisConfig = new JedisPoolConfig();
        jedisConfig.setMaxTotal(Math.max(16, 2 * Arrays.stream(threadCounts).max().orElse(1) + 4));
        jedisConfig.setMaxIdle(jedisConfig.getMaxTotal());
        JedisPool jedis = new JedisPool(jedisConfig, URI.create(url));
        URI redisUri = URI.create(url);
        LettuceConnectionFactory lettuce = new LettuceConnectionFactory(redisUri.getHost(),
                redisUri.getPort() > 0 ? redisUri.getPort() : 6379);
        lettuce.afterPropertiesSet();
        lettuce.start();
        LeaseBenchmark bench = new LeaseBenchmark(redisson, jedis, lettuce, prefix);
        bench.lettuceAloneClient = RedisClient.create(url);
        // The client options Spring Data Redis gives its Lettuce client by default (a timeout on every command), so that
        // "Lettuce alone" is the same client as the one the Spring path runs on.
        bench.lettuceAloneClient.setOptions(io.lettuce.core.ClientOptions.builder()
                .timeoutOptions(io.lettuce.core.TimeoutOptions.enabled()).build());
        bench.lettuceAloneConnection = bench.lettuceAloneClient.connect();
        bench.lettuceAlone = bench.lettuceAloneConnection.sync();
        bench.acquireSha = bench.lettuceAlone.scriptLoad(LeaseScriptTexts.acquire());
        bench.releaseSha = bench.lettuceAlone.scriptLoad(LeaseScriptTexts.release());
        bench.jedisAlone = new JedisPool(jedisConfig, URI.create(url));
        bench.redissonAloneClient = Redisson.create(redissonConfig(url));
        bench.redissonAloneScript = bench.redissonAloneClient.getScript(StringCodec.INSTANCE);
        try {
            System.out.printf("rounds %d x %.1f s per implementation and thread count, warm-up %.1f s each; "
                    + "one operation = acquire + release, uncontended, %d resources per thread%n",
                    rounds, seconds, warmup, RESOURCES_PER_THREAD);
            return bench.run(rounds, seconds, warmup, threadCounts, () -> bench.floorReading(url, threadCounts, floorRequests));
        } finally {
            bench.manager.close();
            bench.bgManager.close();
            bench.jedisManager.close();
            bench.jedisBgManager.close();
            bench.lettuceManager.close();
            bench.lettuceBgManager.close();
            try {
                long deleted = redisson.getKeys().deleteByPattern(prefix + "*")
                        + redisson.getKeys().deleteByPattern("redisson_lock_token:{" + prefix + "*");
                System.out.println("cleaned up " + deleted + " keys under " + prefix);
            } catch (RuntimeException e) {
                System.out.println("could not clean up the keys under " + prefix + ": " + e);
            }
            redisson.shutdown();
            jedis.close();
            lettuce.destroy();
            bench.lettuceAloneConnection.close();
            bench.lettuceAloneClient.shutdown();
            bench.jedisAlone.close();
            bench.redissonAloneClient.shutdown();
        }
    }

    /** One Redisson config for the Redisson paths and Redisson alone. */
    private static Config redissonConfig(String url) {
        Config config = new Config();
        config.useSingleServer().setAddress(url);
        return config;
    }

    /** The acquire script's keys as the script anchor's: this run's, one set per implementation and resource. */
    /** The channel the release script publishes on (nobody listens: the path's release publishes as well). */
    private static String releaseChannel(List<String> keys) {
        return keys.get(0) + ":released";
    }

    private List<String> anchorKeys(Impl impl, String name) {
        String keys = prefix + impl.name().toLowerCase(Locale.ROOT) + ":{" + name + "}:";
        return List.of(keys + "lock", keys + "delay", keys + "seq", keys + "given-up");
    }

    /** Measures every implementation; one that fails is reported and left out of the later rounds. */
    private boolean run(int rounds, double seconds, double warmup, int[] threadCounts,
                        Supplier<Map<Integer, Double>> floorSample) {
        int maxThreads = Arrays.stream(threadCounts).max().orElse(1);
        ExecutorService pool = Executors.newFixedThreadPool(maxThreads, r -> {
            Thread t = new Thread(r, "lease-bench");
            t.setDaemon(true);
            return t;
        });
        Map<Impl, Throwable> failed = new EnumMap<>(Impl.class);
        Map<Integer, Map<Impl, Result>> results = new TreeMap<>();
        // The floor moves from one reading to the next on a shared machine: three readings, after the warm-up
        // (no compiler threads competing), in the middle and at the end of the rounds; their median counts.
        List<Map<Integer, Double>> floorSamples = new ArrayList<>();
        try {
            for (int threads : threadCounts) {
                for (Impl impl : IMPLS) {
                    measure(pool, impl, threads, warmup, failed);
                }
            }
            floorSamples.add(floorSample.get());
            for (int round = 0; round < rounds; round++) {
                if (round == rounds / 2 && rounds > 1) {
                    floorSamples.add(floorSample.get());
                }
                for (int threads : threadCounts) {
                    Map<Impl, Result> byImpl = results.computeIfAbsent(threads, t -> new EnumMap<>(Impl.class));
                    for (int i = 0; i < IMPLS.length; i++) {
                        Impl impl = IMPLS[(i + round) % IMPLS.length];
                        Run run = measure(pool, impl, threads, seconds, failed);
                        if (run != null) {
                            byImpl.computeIfAbsent(impl, k -> new Result()).add(run);
                        }
                    }
                }
                System.out.printf("round %d/%d done%n", round + 1, rounds);
            }
            floorSamples.add(floorSample.get());
        } finally {
            pool.shutdownNow();
            print(results, medianFloor(floorSamples), failed);
        }
        return failed.isEmpty();
    }

    /** The Redis server's CPU per PING of the floor readings, by connection count. */
    private final Map<Integer, List<Double>> pingCpuMicros = new TreeMap<>();

    /** The acquire script alone, run by redis-benchmark: its rates and Redis CPU per run, by connection count. */
    private final Map<Integer, List<Double>> scriptRates = new TreeMap<>();
    private final Map<Integer, List<Double>> scriptCpuMicros = new TreeMap<>();

    /**
     * One reading of the floor at each connection count, with what each PING cost the Redis server; then the
     * provider's acquire script from the same C client: on 1,000 resources (this run's prefix) whose lock lives
     * 1 ms, so that each run finds its resource free and its token counter there, as the lease benchmark's
     * acquires do.
     */
    private Map<Integer, Double> floorReading(String url, int[] threadCounts, int requests) {
        Map<Integer, Double> rates = new TreeMap<>();
        String sha;
        try (var connection = jedis.getResource()) {
            sha = connection.scriptLoad(LeaseScriptTexts.acquire());
        } catch (RuntimeException e) {
            System.out.println("acquire script not loaded (" + Benchmarks.brief(e) + "); its reading skipped");
            sha = null;
        }
        String keys = prefix + "script:{__rand_int__}:";
        // ARGV: holder, lease 1 ms, no lock-delay, token counter kept 10 s.
        List<String> acquireScript = sha == null ? null : List.of("-r", "1000", "EVALSHA", sha, "4", keys + "lock",
                keys + "delay", keys + "seq", keys + "given-up", "redis-benchmark", "1", "0", "10000");
        for (int connections : threadCounts) {
            withRedisCpu(() -> Optional.ofNullable(RedisFloor.rates(url, new int[] {connections}, requests).get(connections)),
                    requests, pingCpuMicros, connections)
                    .ifPresent(rate -> rates.put(connections, rate));
            RedisFloor.executable().filter(executable -> acquireScript != null).ifPresent(executable ->
                    withRedisCpu(() -> RedisFloor.rate(executable, url, connections, requests, acquireScript), requests,
                            scriptCpuMicros, connections)
                            .ifPresent(rate -> scriptRates.computeIfAbsent(connections, c -> new ArrayList<>()).add(rate)));
        }
        return rates;
    }

    /** A redis-benchmark reading of {@code requests}; what each cost the Redis server goes to {@code cpuMicros}. */
    private Optional<Double> withRedisCpu(Supplier<Optional<Double>> reading, int requests,
                                          Map<Integer, List<Double>> cpuMicros, int connections) {
        long before = redisCpuNanos();
        Optional<Double> rate = reading.get();
        long after = redisCpuNanos();
        if (rate.isPresent() && before >= 0 && after >= 0) {
            cpuMicros.computeIfAbsent(connections, c -> new ArrayList<>()).add((after - before) / 1e3 / requests);
        }
        return rate;
    }

    /** By connection count, the median of the readings that have it. */
    private static Map<Integer, Double> medianFloor(List<Map<Integer, Double>> samples) {
        Map<Integer, Double> median = new TreeMap<>();
        samples.stream().flatMap(m -> m.keySet().stream()).distinct().forEach(connections -> {
            double[] v = samples.stream().map(m -> m.get(connections)).filter(java.util.Objects::nonNull)
                    .mapToDouble(Double::doubleValue).sorted().toArray();
            median.put(connections, v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2);
            System.out.printf("floor, %d connection(s): %d reading(s) %s, median %.0f/s%n", connections, v.length,
                    Arrays.toString(Arrays.stream(v).mapToLong(Math::round).toArray()), median.get(connections));
        });
        return median;
    }

    /** CPU time of the Redis server so far (INFO cpu: user + system), -1 when it cannot be read. */
    private long redisCpuNanos() {
        try (var connection = jedis.getResource()) {
            return ProcessCpu.redisServerNanos(connection.info("cpu"));
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** {@link #measure(ExecutorService, Impl, int, double)}, or null once {@code impl} has failed. */
    private Run measure(ExecutorService pool, Impl impl, int threads, double seconds, Map<Impl, Throwable> failed) {
        if (failed.containsKey(impl)) {
            return null;
        }
        try {
            return measure(pool, impl, threads, seconds);
        } catch (Exception e) {
            Throwable cause = Benchmarks.cause(e);
            failed.put(impl, cause);
            System.out.printf("%s FAILED with %d thread(s): %s%n", impl.label, threads, Benchmarks.brief(cause));
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return null;
        }
    }

    /** One timed run: every thread loops over its own resources until the end. */
    private Run measure(ExecutorService pool, Impl impl, int threads, double seconds) throws Exception {
        CyclicBarrier start = new CyclicBarrier(threads);
        long durationNanos = (long) (seconds * 1e9);
        List<Future<long[]>> futures = new ArrayList<>();
        long redisCpuBefore = redisCpuNanos();
        long cpuBefore = ProcessCpu.nanos();
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
        long limit = System.nanoTime() + durationNanos + TimeUnit.SECONDS.toNanos(60);
        for (Future<long[]> f : futures) {
            long[] samples = f.get(Math.max(0, limit - System.nanoTime()), TimeUnit.NANOSECONDS);
            run.elapsedNanos = Math.max(run.elapsedNanos, samples[samples.length - 1]);
            run.latencies.add(Arrays.copyOf(samples, samples.length - 1));
        }
        run.cpuNanos = ProcessCpu.nanos() - cpuBefore;
        long redisCpuAfter = redisCpuNanos();
        run.redisCpuNanos = redisCpuBefore < 0 || redisCpuAfter < 0 ? -1 : redisCpuAfter - redisCpuBefore;
        return run;
    }

    private void once(Impl impl, String name) {
        switch (impl) {
            case FENCEGUARD -> {
                try (Lease lease = manager.acquire(name, Duration.ofSeconds(10))) {
                    sink += lease.token().value();
                }
            }
            case FENCEGUARD_BG -> {
                try (Lease lease = bgManager.acquire(name, Duration.ofSeconds(10))) {
                    sink += lease.token().value();
                }
            }
            case FENCEGUARD_JEDIS -> {
                try (Lease lease = jedisManager.acquire(name, Duration.ofSeconds(10))) {
                    sink += lease.token().value();
                }
            }
            case FENCEGUARD_JEDIS_BG -> {
                try (Lease lease = jedisBgManager.acquire(name, Duration.ofSeconds(10))) {
                    sink += lease.token().value();
                }
            }
            case FENCEGUARD_LETTUCE -> {
                try (Lease lease = lettuceManager.acquire(name, Duration.ofSeconds(10))) {
                    sink += lease.token().value();
                }
            }
            case FENCEGUARD_LETTUCE_BG -> {
                try (Lease lease = lettuceBgManager.acquire(name, Duration.ofSeconds(10))) {
                    sink += lease.token().value();
                }
            }
            case LETTUCE_ALONE -> {
                List<String> keys = anchorKeys(impl, name);
                List<Object> granted = lettuceAlone.evalsha(acquireSha, ScriptOutputType.MULTI,
                        keys.toArray(String[]::new), ALONE_ACQUIRE_ARGS.toArray(String[]::new));
                Long released = lettuceAlone.evalsha(releaseSha, ScriptOutputType.INTEGER,
                        new String[] {keys.get(0), keys.get(1)}, "client-alone", releaseChannel(keys));
                sink += granted.size() + released;
            }
            case JEDIS_ALONE -> {
                // A connection per command, as the lease path borrows one for the acquire and one for the release.
                List<String> keys = anchorKeys(impl, name);
                try (Jedis connection = jedisAlone.getResource()) {
                    sink += ((List<?>) connection.evalsha(acquireSha, keys, ALONE_ACQUIRE_ARGS)).size();
                }
                try (Jedis connection = jedisAlone.getResource()) {
                    sink += (Long) connection.evalsha(releaseSha, keys.subList(0, 2),
                            List.of("client-alone", releaseChannel(keys)));
                }
            }
            case REDISSON_ALONE -> {
                List<String> names = anchorKeys(impl, name);
                List<Object> keys = new ArrayList<>(names);
                List<?> granted = redissonAloneScript.evalSha(names.get(0), RScript.Mode.READ_WRITE, acquireSha,
                        RScript.ReturnType.LIST, keys, ALONE_ACQUIRE_ARGS.toArray());
                Long released = redissonAloneScript.evalSha(names.get(0), RScript.Mode.READ_WRITE, releaseSha,
                        RScript.ReturnType.LONG, new ArrayList<>(keys.subList(0, 2)), "client-alone",
                        releaseChannel(names));
                sink += granted.size() + released;
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

    private void print(Map<Integer, Map<Impl, Result>> results, Map<Integer, Double> floor,
                              Map<Impl, Throwable> failed) {
        System.out.println();
        String header = String.format("%-34s %8s %12s %10s %10s %14s %16s %10s", "implementation", "threads",
                "ops/s", "p50 µs", "p99 µs", "JVM CPU µs/op", "Redis CPU µs/op", "vs RLock");
        System.out.println(header);
        System.out.println("-".repeat(header.length()));
        for (Map.Entry<Integer, Map<Impl, Result>> e : results.entrySet()) {
            Result rlock = e.getValue().get(Impl.RLOCK);
            for (Impl impl : IMPLS) {
                Result r = e.getValue().get(impl);
                if (r == null) {
                    System.out.printf("%-34s %8d   not measured, failed: %s%n", impl.label, e.getKey(),
                            Benchmarks.brief(failed.get(impl)));
                    continue;
                }
                long[] all = r.allLatencies();
                Arrays.sort(all);
                double ops = r.medianOpsPerSecond();
                System.out.printf("%-34s %8d %12.0f %10.1f %10.1f %14.1f %16.1f %10.2f%n", impl.label, e.getKey(), ops,
                        Benchmarks.percentile(all, 0.50) / 1e3, Benchmarks.percentile(all, 0.99) / 1e3,
                        r.cpuMicrosPerOp(), r.redisCpuMicrosPerOp(),
                        rlock == null ? Double.NaN : ops / rlock.medianOpsPerSecond());
            }
        }
        System.out.println();
        for (Map.Entry<Integer, Map<Impl, Result>> e : results.entrySet()) {
            Result fg = e.getValue().get(Impl.FENCEGUARD);
            Result rlock = e.getValue().get(Impl.RLOCK);
            if (fg == null || rlock == null) {
                System.out.printf("fenceguard / RLock throughput, %d thread(s): not measured%n", e.getKey());
                continue;
            }
            double ratio = fg.medianOpsPerSecond() / rlock.medianOpsPerSecond();
            System.out.printf("fenceguard / RLock throughput, %d thread%s: %.2f (goal >= 1.00)%s%n", e.getKey(),
                    e.getKey() == 1 ? "" : "s", ratio, ratio >= 1.0 ? "" : "  BELOW GOAL");
        }
        // What fenceguard adds on each client, apart from what the client costs: both send two commands per operation.
        for (Map.Entry<Integer, Map<Impl, Result>> e : results.entrySet()) {
            e.getValue().forEach((impl, path) -> {
                Result alone = impl.clientAlone() == null ? null : e.getValue().get(impl.clientAlone());
                if (alone == null) {
                    return;
                }
                double ratio = path.medianOpsPerSecond() / alone.medianOpsPerSecond();
                System.out.printf("%s / %s, %d thread(s): %.2f throughput (goal >= %.2f), JVM CPU per op %.0f / %.0f "
                        + "µs%s%n", impl.label, impl.clientAlone().label, e.getKey(), ratio, CLIENT_ALONE_GOAL,
                        path.cpuMicrosPerOp(), alone.cpuMicrosPerOp(), ratio >= CLIENT_ALONE_GOAL ? "" : "  BELOW GOAL");
            });
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
            byImpl.forEach((impl, r) -> System.out.printf(" %s %.2f", impl.label, r.medianOpsPerSecond() / ceiling));
            System.out.println();
        }
        pingCpuMicros.forEach((connections, v) -> System.out.printf("Redis CPU per PING, %d connection(s): %s µs "
                + "(the floor's server cost; compare with Redis CPU per operation above)%n", connections,
                v.stream().map(x -> String.format("%.1f", x)).toList()));
        // An anchor for this lock's own work: its acquire script from a C client, plus one PING's round trip for the
        // release (which costs Redis less than the release script). Read at other moments than the rounds, so a
        // drifting machine can put an implementation above it.
        scriptRates.forEach((connections, v) -> {
            double acquires = v.stream().mapToDouble(Double::doubleValue).sorted().toArray()[v.size() / 2];
            Double ping = floor.get(connections);
            System.out.printf("acquire script alone (redis-benchmark EVALSHA), %d connection(s): %s/s, "
                    + "Redis CPU per run %s µs%n", connections, v.stream().map(x -> String.format("%.0f", x)).toList(),
                    scriptCpuMicros.getOrDefault(connections, List.of()).stream().map(x -> String.format("%.1f", x)).toList());
            Map<Impl, Result> byImpl = results.get(connections);
            if (ping == null || byImpl == null) {
                return;
            }
            double anchor = 1 / (1 / acquires + 1 / ping);
            BenchTable.row("redis", "script anchor: the acquire script from redis-benchmark + one PING, " + connections
                    + " connection(s)", anchor, "ops/s", "–", Double.NaN, anchor / (ping / 2));
            System.out.printf("  with one PING for the release: %.0f acquire+release/s (script anchor); reached:", anchor);
            byImpl.forEach((impl, r) -> System.out.printf(" %s %.2f", impl.label, r.medianOpsPerSecond() / anchor));
            System.out.println();
        });
        // Client and server share this machine's CPUs: their CPU per operation bounds the rate, whatever the floor.
        int cpus = Runtime.getRuntime().availableProcessors();
        System.out.printf("CPU bound (client and Redis on the same %d CPUs): at most %d / (JVM + Redis CPU per op) "
                + "operations/s; reached:%n", cpus, cpus);
        for (Map.Entry<Integer, Map<Impl, Result>> e : results.entrySet()) {
            e.getValue().forEach((impl, r) -> {
                double perOp = r.cpuMicrosPerOp() + r.redisCpuMicrosPerOp();
                double bound = cpus * 1e6 / perOp;
                // Redis runs commands on one thread: one CPU of its own is the most it can spend.
                double redisBound = 1e6 / r.redisCpuMicrosPerOp();
                System.out.printf("  %-34s %d thread(s): bound %.0f ops/s, reached %.2f of it; Redis alone on a "
                        + "whole CPU: at most %.0f ops/s%n", impl.label, e.getKey(), bound,
                        r.medianOpsPerSecond() / bound, redisBound);
            });
        }
        for (Map.Entry<Integer, Map<Impl, Result>> e : results.entrySet()) {
            Result rlock = e.getValue().get(Impl.RLOCK);
            Double ping = floor.get(e.getKey());
            e.getValue().forEach((impl, r) -> {
                if (impl == Impl.RLOCK) {
                    return;
                }
                double ops = r.medianOpsPerSecond();
                // The path's client alone: that library sending the path's commands, its CPU the path's floor.
                Result alone = impl.clientAlone() == null ? null : e.getValue().get(impl.clientAlone());
                BenchTable.row("redis", impl.label + ", acquire+release, " + e.getKey() + " thread(s)", ops, "ops/s",
                        "Redisson RLock", rlock == null ? Double.NaN : ops / rlock.medianOpsPerSecond(),
                        ping == null ? Double.NaN : ops / (ping / 2), r.cpuMicrosPerOp(),
                        alone == null ? Double.NaN : alone.cpuMicrosPerOp());
                if (alone != null) {
                    BenchTable.row("redis", impl.label + " against its client alone, " + e.getKey() + " thread(s)", ops,
                            "ops/s", impl.clientAlone().label, ops / alone.medianOpsPerSecond(), Double.NaN,
                            r.cpuMicrosPerOp(), alone.cpuMicrosPerOp());
                }
            });
        }
        System.out.println("per-round ops/s (min..max):");
        for (Map.Entry<Integer, Map<Impl, Result>> e : results.entrySet()) {
            e.getValue().forEach((impl, r) -> {
                double[] perRound = r.opsPerSecond();
                System.out.printf("  %-34s %d thread(s): %.0f .. %.0f%n", impl.label, e.getKey(),
                        Arrays.stream(perRound).min().orElse(0), Arrays.stream(perRound).max().orElse(0));
            });
        }
    }
}
