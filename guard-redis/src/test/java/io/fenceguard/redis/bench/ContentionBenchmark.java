package io.fenceguard.redis.bench;

import io.fenceguard.redis.jedis.JedisScriptClient;
import io.fenceguard.redis.springdata.SpringDataRedisScriptClient;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.redis.RedisLeaseConfig;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.redis.bench.ContentionRuns.Client;
import io.fenceguard.redis.bench.ContentionRuns.Run;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;

/**
 * Contention: N clients (threads, spread over a few Redisson clients, each with its own
 * {@link LeaseManager}) hammer resources for a fixed time, each operation being acquire (waiting) +
 * a short critical section + release. Loads: 1, 8 and 64 clients on ONE resource, and 8 clients on
 * 10,000 resources (a random one per operation). fenceguard {@code LeaseManager.acquire(resource, wait)} on
 * Redisson, on Jedis and on Spring Data Redis with Lettuce (one connection factory per manager) against Redisson
 * {@link RLock} {@code lock()} / {@code unlock()} under the same loads.
 *
 * <p>Per load and implementation: grants/s (grants within the measured time), the wait until granted
 * (time in {@code acquire}/{@code lock}, the round trip included) at p50/p90/p99/max, timeouts
 * (fenceguard only: {@code lock()} has no wait limit), and the fewest and most grants of one client.
 * Operations begun before the end run to completion and their waits count, so a queue at the end is
 * not cut off.
 *
 * <pre>
 * ./mvnw -B -pl guard-redis -am -Pbench -DskipTests verify
 *   env GUARD_TEST_REDIS_URL (default redis://127.0.0.1:6379)
 *   -Dbench.contention.seconds=4 -Dbench.contention.warmup=1 -Dbench.contention.clients=1,8,64
 *   -Dbench.contention.resources=10000 -Dbench.contention.many-clients=8 -Dbench.contention.hold-us=100
 *   -Dbench.contention.wait-ms=2000 -Dbench.contention.redissons=4
 * </pre>
 */
public final class ContentionBenchmark {

    enum Impl {
        FENCEGUARD("fenceguard LeaseManager"),
        FENCEGUARD_JEDIS("fenceguard on Jedis"),
        FENCEGUARD_LETTUCE("fenceguard on Lettuce"),
        RLOCK("Redisson RLock");

        final String label;

        Impl(String label) {
            this.label = label;
        }
    }

    record Load(String label, int clients, int resources) {
    }

    private final RedissonClient[] redissons;
    private final LeaseManager[] managers;
    private final String prefix;
    private final long holdNanos;
    private final Duration wait;
    private volatile long sink;

    private final JedisPool[] jedisPools;
    private final LeaseManager[] jedisManagers;
    /** Spring Data Redis on Lettuce, Boot's default when the application has no RedissonClient. */
    private final LettuceConnectionFactory[] lettuceFactories;
    private final LeaseManager[] lettuceManagers;

    private ContentionBenchmark(RedissonClient[] redissons, String url, int jedisPoolSize, String prefix, long holdNanos,
                                Duration wait) {
        this.redissons = redissons;
        this.prefix = prefix;
        this.holdNanos = holdNanos;
        this.wait = wait;
        this.managers = new LeaseManager[redissons.length];
        this.jedisPools = new JedisPool[redissons.length];
        this.jedisManagers = new LeaseManager[redissons.length];
        this.lettuceFactories = new LettuceConnectionFactory[redissons.length];
        this.lettuceManagers = new LeaseManager[redissons.length];
        URI redisUri = URI.create(url);
        for (int i = 0; i < redissons.length; i++) {
            managers[i] = LeaseManager.of(RedisLeaseProvider.of(RedissonScriptClient.of(redissons[i]),
                    RedisLeaseConfig.builder().keyPrefix(prefix + "fg:").build()),
                    LeaseConfig.builder().clientName("bench" + i).build());
            JedisPoolConfig poolConfig = new JedisPoolConfig();
            poolConfig.setMaxTotal(jedisPoolSize);
            poolConfig.setMaxIdle(jedisPoolSize);
            jedisPools[i] = new JedisPool(poolConfig, URI.create(url));
            jedisManagers[i] = LeaseManager.of(RedisLeaseProvider.of(JedisScriptClient.of(jedisPools[i]),
                    RedisLeaseConfig.builder().keyPrefix(prefix + "fgj:").build()),
                    LeaseConfig.builder().clientName("benchj" + i).build());
            lettuceFactories[i] = new LettuceConnectionFactory(redisUri.getHost(),
                    redisUri.getPort() > 0 ? redisUri.getPort() : 6379);
            lettuceFactories[i].afterPropertiesSet();
            lettuceFactories[i].start();
            lettuceManagers[i] = LeaseManager.of(RedisLeaseProvider.of(SpringDataRedisScriptClient.of(lettuceFactories[i]),
                    RedisLeaseConfig.builder().keyPrefix(prefix + "fgl:").build()),
                    LeaseConfig.builder().clientName("benchl" + i).build());
        }
    }

    public static void main(String[] args) {
        Benchmarks.runAndExit("contention benchmark", ContentionBenchmark::measureAll);
    }

    /** Whether every load was measured for every implementation. */
    private static boolean measureAll() throws Exception {
        String url = System.getenv().getOrDefault("GUARD_TEST_REDIS_URL", "redis://127.0.0.1:6379").trim();
        double seconds = Double.parseDouble(System.getProperty("bench.contention.seconds", "4"));
        double warmup = Double.parseDouble(System.getProperty("bench.contention.warmup", "1"));
        int[] clientCounts = Arrays.stream(System.getProperty("bench.contention.clients", "1,8,64").split(","))
                .mapToInt(s -> Integer.parseInt(s.trim())).toArray();
        int manyResources = Integer.getInteger("bench.contention.resources", 10_000);
        int manyClients = Integer.getInteger("bench.contention.many-clients", 8);
        long holdMicros = Long.getLong("bench.contention.hold-us", 100);
        long waitMillis = Long.getLong("bench.contention.wait-ms", 2_000);
        int redissonCount = Integer.getInteger("bench.contention.redissons", 4);

        List<Load> loads = new ArrayList<>();
        for (int clients : clientCounts) {
            loads.add(new Load("1 resource", clients, 1));
        }
        if (manyResources > 0 && manyClients > 0) {
            loads.add(new Load(String.format("%,d resources", manyResources), manyClients, manyResources));
        }
        int maxClients = loads.stream().mapToInt(Load::clients).max().orElse(1);

        System.out.println(Benchmarks.machineLine(url));
        RedissonClient[] redissons = new RedissonClient[Math.max(1, Math.min(redissonCount, maxClients))];
        for (int i = 0; i < redissons.length; i++) {
            Config config = new Config();
            config.useSingleServer().setAddress(url).setConnectionMinimumIdleSize(8)
                    .setConnectionPoolSize(Math.max(64, maxClients));
            redissons[i] = Redisson.create(config);
        }
        String prefix = "fgbench-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        ContentionBenchmark bench = new ContentionBenchmark(redissons, url, Math.max(16, maxClients + 4), prefix,
                holdMicros * 1_000,
                Duration.ofMillis(waitMillis));
        try {
            System.out.printf("contention: %.1f s per load and implementation after a %.1f s warm-up; operation = "
                    + "acquire (fenceguard wait limit %d ms; RLock lock() waits without limit) + critical section "
                    + "(park %d µs) + release; clients are threads over %d Redisson client(s)%n",
                    seconds, warmup, waitMillis, holdMicros, redissons.length);
            return bench.run(loads, seconds, warmup, maxClients);
        } finally {
            for (LeaseManager manager : bench.managers) {
                manager.close();
            }
            for (LeaseManager manager : bench.jedisManagers) {
                manager.close();
            }
            for (JedisPool jedis : bench.jedisPools) {
                jedis.close();
            }
            for (LeaseManager manager : bench.lettuceManagers) {
                manager.close();
            }
            for (LettuceConnectionFactory factory : bench.lettuceFactories) {
                factory.destroy();
            }
            try {
                long deleted = redissons[0].getKeys().deleteByPattern(prefix + "*");
                System.out.println("cleaned up " + deleted + " keys under " + prefix);
            } catch (RuntimeException e) {
                System.out.println("could not clean up the keys under " + prefix + ": " + e);
            }
            for (RedissonClient redisson : redissons) {
                redisson.shutdown();
            }
        }
    }

    /** Measures every load; a run that fails is reported, and its row marked, and the rest go on. */
    private boolean run(List<Load> loads, double seconds, double warmup, int maxClients) {
        ExecutorService pool = Executors.newFixedThreadPool(maxClients, r -> {
            Thread t = new Thread(r, "contention-bench");
            t.setDaemon(true);
            return t;
        });
        Map<Load, Map<Impl, Run>> results = new LinkedHashMap<>();
        Map<String, Throwable> failed = new LinkedHashMap<>();
        try {
            int n = 0;
            for (Load load : loads) {
                Map<Impl, Run> byImpl = new EnumMap<>(Impl.class);
                results.put(load, byImpl);
                for (int i = 0; i < Impl.values().length; i++) {
                    Impl impl = Impl.values()[(i + n) % Impl.values().length];
                    try {
                        if (warmup > 0) {
                            measure(pool, impl, load, warmup);
                        }
                        Run run = measure(pool, impl, load, seconds);
                        byImpl.put(impl, run);
                        System.out.printf("  %-18s %3d clients  %-24s %10.0f grants/s%n", load.label(), load.clients(),
                                impl.label, run.grantsPerSecond());
                        if (run.errors > 0) {
                            // Redis failed under the load: the figures stand, but the run did not go as it should.
                            failed.put(key(load, impl), new IllegalStateException(run.errors + " acquisitions failed"));
                        }
                    } catch (Exception e) {
                        Throwable cause = Benchmarks.cause(e);
                        failed.put(key(load, impl), cause);
                        System.out.printf("  %-18s %3d clients  %-24s FAILED: %s%n", load.label(), load.clients(),
                                impl.label, Benchmarks.brief(cause));
                        if (e instanceof InterruptedException) {
                            Thread.currentThread().interrupt();
                            return false;
                        }
                    }
                }
                n++;
            }
        } finally {
            pool.shutdownNow();
            print(results, failed);
        }
        return failed.isEmpty();
    }

    private static String key(Load load, Impl impl) {
        return load.label() + "/" + load.clients() + "/" + impl;
    }

    /** One timed run of {@code load}: every client loops until the end, then finishes its operation. */
    private Run measure(ExecutorService pool, Impl impl, Load load, double seconds) throws Exception {
        CyclicBarrier start = new CyclicBarrier(load.clients());
        long durationNanos = (long) (seconds * 1e9);
        List<Future<Client>> futures = new ArrayList<>();
        for (int t = 0; t < load.clients(); t++) {
            int index = t % redissons.length;
            futures.add(pool.submit(() -> {
                Client client = new Client();
                start.await();
                long end = System.nanoTime() + durationNanos;
                while (System.nanoTime() < end) {
                    String name = load.resources() == 1 ? "one"
                            : "r" + ThreadLocalRandom.current().nextInt(load.resources());
                    once(impl, index, name, end, client);
                }
                return client;
            }));
        }
        Run run = new Run(seconds);
        // Every client finishes its last operation after the end; a run that never does has failed.
        long limit = System.nanoTime() + durationNanos + TimeUnit.SECONDS.toNanos(120);
        for (Future<Client> f : futures) {
            run.add(f.get(Math.max(0, limit - System.nanoTime()), TimeUnit.NANOSECONDS));
        }
        return run;
    }

    private void once(Impl impl, int index, String name, long end, Client client) {
        long began = System.nanoTime();
        switch (impl) {
            case FENCEGUARD, FENCEGUARD_JEDIS, FENCEGUARD_LETTUCE -> {
                LeaseManager manager = impl == Impl.FENCEGUARD ? managers[index]
                        : impl == Impl.FENCEGUARD_JEDIS ? jedisManagers[index] : lettuceManagers[index];
                Lease lease;
                try {
                    lease = manager.acquire(name, wait);
                } catch (LeaseTimeoutException e) {
                    client.timeouts++;
                    return;
                } catch (FenceguardException e) {
                    client.errors++;
                    return;
                }
                try (lease) {
                    client.granted(System.nanoTime() - began, began, end);
                    sink += lease.token().value();
                    hold();
                }
            }
            case RLOCK -> {
                RLock lock = redissons[index].getLock(prefix + "rlock:" + name);
                lock.lock();
                try {
                    client.granted(System.nanoTime() - began, began, end);
                    hold();
                } finally {
                    lock.unlock();
                }
            }
            default -> throw new IllegalStateException();
        }
    }

    private void hold() {
        if (holdNanos > 0) {
            LockSupport.parkNanos(holdNanos);
        }
    }

    private static void print(Map<Load, Map<Impl, Run>> results, Map<String, Throwable> failed) {
        System.out.println();
        String header = String.format("%-18s %7s %-24s %11s %9s %9s %9s %9s %8s %15s", "load", "clients",
                "implementation", "grants/s", "p50 µs", "p90 µs", "p99 µs", "max µs", "timeouts",
                "per client");
        System.out.println(header);
        System.out.println("-".repeat(header.length()));
        for (Map.Entry<Load, Map<Impl, Run>> e : results.entrySet()) {
            for (Impl impl : Impl.values()) {
                Run r = e.getValue().get(impl);
                if (r == null) {
                    System.out.printf("%-18s %7d %-24s FAILED: %s%n", e.getKey().label(), e.getKey().clients(),
                            impl.label, Benchmarks.brief(failed.get(key(e.getKey(), impl))));
                    continue;
                }
                long[] w = r.sortedWaits();
                System.out.printf("%-18s %7d %-24s %11.0f %9.0f %9.0f %9.0f %9.0f %8s %15s%n", e.getKey().label(),
                        e.getKey().clients(), impl.label, r.grantsPerSecond(), Benchmarks.percentile(w, 0.50) / 1e3,
                        Benchmarks.percentile(w, 0.90) / 1e3, Benchmarks.percentile(w, 0.99) / 1e3,
                        (w.length == 0 ? 0 : w[w.length - 1]) / 1e3,
                        impl == Impl.RLOCK ? "-" : r.timeouts + (r.errors > 0 ? "+" + r.errors + "err" : ""),
                        r.minGrants + ".." + r.maxGrants);
            }
        }
        System.out.println();
        for (Map.Entry<Load, Map<Impl, Run>> e : results.entrySet()) {
            for (Impl impl : List.of(Impl.FENCEGUARD, Impl.FENCEGUARD_JEDIS, Impl.FENCEGUARD_LETTUCE)) {
                Run fg = e.getValue().get(impl);
                Run rl = e.getValue().get(Impl.RLOCK);
                if (fg == null || rl == null) {
                    System.out.printf("%s / RLock, %s, %d client(s): not measured%n", impl.label, e.getKey().label(),
                            e.getKey().clients());
                    continue;
                }
                long[] fw = fg.sortedWaits();
                long[] rw = rl.sortedWaits();
                System.out.printf("%s / RLock, %s, %d client%s: grants/s %.2f, wait p50 %.2f, p99 %.2f%n", impl.label,
                        e.getKey().label(), e.getKey().clients(), e.getKey().clients() == 1 ? "" : "s",
                        fg.grantsPerSecond() / rl.grantsPerSecond(),
                        ratio(Benchmarks.percentile(fw, 0.50), Benchmarks.percentile(rw, 0.50)),
                        ratio(Benchmarks.percentile(fw, 0.99), Benchmarks.percentile(rw, 0.99)));
                String load = "contention, " + e.getKey().label() + ", " + e.getKey().clients() + " client"
                        + (e.getKey().clients() == 1 ? "" : "s");
                String who = impl == Impl.FENCEGUARD ? "fenceguard" : impl.label;
                io.fenceguard.test.support.bench.BenchTable.row("redis", load + ": " + who + " grants", fg.grantsPerSecond(),
                        "grants/s", "Redisson RLock", fg.grantsPerSecond() / rl.grantsPerSecond(), Double.NaN);
                io.fenceguard.test.support.bench.BenchTable.row("redis", load + ": " + who + " wait p99",
                        Benchmarks.percentile(fw, 0.99) / 1e3, "µs", "Redisson RLock's p99",
                        ratio(Benchmarks.percentile(fw, 0.99), Benchmarks.percentile(rw, 0.99)), Double.NaN);
            }
        }
    }

    private static double ratio(long a, long b) {
        return b == 0 ? Double.NaN : (double) a / b;
    }
}
