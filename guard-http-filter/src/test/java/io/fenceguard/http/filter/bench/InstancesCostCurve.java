package io.fenceguard.http.filter.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.admission.FenceHeader;
import io.fenceguard.admission.RequestSignatures;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.admission.TokenBound;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.http.filter.support.Instances;
import io.fenceguard.http.filter.support.TestApp;
import io.fenceguard.http.filter.support.TestWiring;
import io.fenceguard.redis.RedisHighWaterStore;
import io.fenceguard.redis.springdata.SpringDataRedisScriptClient;
import io.fenceguard.test.support.bench.BenchChart;
import io.fenceguard.test.support.bench.BenchDeadline;
import io.fenceguard.test.support.bench.BenchTable;
import io.fenceguard.test.support.bench.ProcessCpu;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * One application instance against two on the same stores: admitted PUT /accounts/bench per second through the
 * servlet fencing filter, compact signed and request-signed, with the JDBC store (PostgreSQL of
 * {@code GUARD_TEST_POSTGRES_URL}, one fresh schema) and the Redis store ({@code GUARD_TEST_REDIS_URL}, keys under
 * one prefix of the run's own), the same resource and token in every request. Each instance is a JVM process of its
 * own ({@link Instance}: its own JIT, GC, servers, filters, connection pools and Redis clients, as real instances),
 * started once; the load driver in this JVM gives the same total of client threads to one instance, or half to each
 * of two. Beside each figure the store server's CPU per request (PostgreSQL: its processes' from /proc when it runs on
 * this machine, any other client's work included; Redis: {@code INFO cpu}) and the instances' (their processes' CPU).
 * Warm-up of each instance alone with every store and signing, then of every variant; then rounds in a rotating
 * order; throughput is the median over rounds. A picture
 * ({@code bench-instances.png}, {@link BenchChart}) and rows of the table; the JVM always exits: 0 with figures, 1 on
 * a failure, 3 when the deadline passed (the instances end with it: they stop when their input closes).
 *
 * <pre>
 * ./mvnw -B -pl guard-http-filter -am -Dbench=http -DskipTests verify   (runs it after the JDBC admission curve)
 *   env GUARD_TEST_POSTGRES_URL, _USER, _PASSWORD, GUARD_TEST_REDIS_URL
 *   -Dbench.instances.seconds=6 (per variant, over all rounds) -Dbench.instances.rounds=3
 *   -Dbench.instances.warmup=2 -Dbench.instances.threads=8 (in all, spread over the instances)
 *   -Dbench.instances.heap=-Xmx512m (each instance's JVM)
 *   -Dbench.instances.deadline=0 (seconds; 0: 180 + 3 × (warm-up + measurement) per variant)
 * </pre>
 */
public final class InstancesCostCurve {

    private static final Duration WARMUP = seconds("bench.instances.warmup", "2");
    private static final Duration MEASURE = seconds("bench.instances.seconds", "6");
    private static final int ROUNDS = Math.max(1, Integer.getInteger("bench.instances.rounds", 3));
    private static final int THREADS = Math.max(2, Integer.getInteger("bench.instances.threads", 8));
    private static final String HEAP = System.getProperty("bench.instances.heap", "-Xmx512m").trim();
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);
    private static final int ATTEMPTS = 3;
    private static final int[] INSTANCE_COUNTS = {1, 2};
    /** How long an instance may take to start before the run fails. */
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    /** Printed by an instance once its servers listen, with their ports by store mode. */
    private static final String PORTS = "instance ports:";
    private static final String REDIS_URL = env("GUARD_TEST_REDIS_URL", "redis://127.0.0.1:6379");

    private InstancesCostCurve() {
    }

    /** A store and a way of signing: one server (application context) in every instance. */
    enum StoreMode {
        JDBC_COMPACT("JDBC, compact signed", true, false),
        JDBC_REQUEST_SIGNED("JDBC, request-signed", true, true),
        REDIS_COMPACT("Redis, compact signed", false, false),
        REDIS_REQUEST_SIGNED("Redis, request-signed", false, true);

        final String label;
        final boolean jdbc;
        final boolean requestSigned;

        StoreMode(String label, boolean jdbc, boolean requestSigned) {
            this.label = label;
            this.jdbc = jdbc;
            this.requestSigned = requestSigned;
        }

        String key() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    public static void main(String[] args) {
        Duration deadline = seconds("bench.instances.deadline", "0");
        if (deadline.isZero()) {
            deadline = WARMUP.plus(MEASURE).multipliedBy(3L * StoreMode.values().length * INSTANCE_COUNTS.length)
                    .plusSeconds(180);
        }
        startDeadline("instances cost curve", deadline);
        int status = 1;
        try {
            curve(deadline);
            status = 0;
        } catch (Throwable e) {
            System.out.println("instances cost curve FAILED: " + e);
            e.printStackTrace(System.out);
        } finally {
            System.out.flush();
            System.exit(status);
        }
    }

    /** One measured variant: a store mode served by 1 or 2 instances. */
    private record Variant(StoreMode mode, int instances, Spread requests) {

        String name() {
            return mode.label + ", " + instances + (instances == 1 ? " instance" : " instances");
        }
    }

    private static void curve(Duration deadline) throws Exception {
        SigningKeys keys = SigningKeys.of(Map.of("k1", Base64.getDecoder().decode(Instances.KEY_A)), "k1");
        Fence fence = new Fence(ResourceName.of("account:bench"), FencingToken.of(42));
        String unsigned = FenceHeader.of(fence).value();
        String compact = keys.header(fence).value();
        RequestSignatures signer = RequestSignatures.of(keys, "Fencing-Token");
        String prefix = "fgbench-instances-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        String postgresHost = URI.create(BenchPostgres.URL.substring("jdbc:".length())).getHost();
        boolean postgresLocal = "127.0.0.1".equals(postgresHost) || "localhost".equals(postgresHost);
        List<InstanceProcess> processes = new ArrayList<>();
        try (BenchPostgres postgres = new BenchPostgres(); JedisPool redis = new JedisPool(URI.create(REDIS_URL));
                LoadDriver driver = new LoadDriver(THREADS, ATTEMPTS, REQUEST_TIMEOUT)) {
            try {
                System.out.printf("instances cost curve: PUT /accounts/bench, %d client threads in all, %.1f s per "
                        + "variant in %d rounds after %.1f s warm-up each, deadline %d s; JDBC store on %s, schema %s;"
                        + " Redis store on %s, keys under %s%n", THREADS, MEASURE.toMillis() / 1e3, ROUNDS,
                        WARMUP.toMillis() / 1e3, deadline.toSeconds(), postgres.describe(), postgres.schema, REDIS_URL,
                        prefix);
                // Both instances start together: their start-up is the slowest part of the run.
                for (String name : List.of("A", "B")) {
                    processes.add(InstanceProcess.start(name, postgres.schema, prefix, deadline));
                }
                for (InstanceProcess process : processes) {
                    process.awaitPorts();
                }
                List<Variant> variants = new ArrayList<>();
                // Every instance warmed up alone with every store and signing first: the one-instance variants are
                // served by A only, and B would otherwise still be compiling in the two-instance ones.
                List<Spread> eachAlone = new ArrayList<>();
                for (StoreMode mode : StoreMode.values()) {
                    for (int count : INSTANCE_COUNTS) {
                        List<Supplier<HttpRequest>> targets = new ArrayList<>();
                        for (InstanceProcess process : processes.subList(0, count)) {
                            URI uri = URI.create("http://127.0.0.1:" + process.port(mode) + "/accounts/bench");
                            targets.add(mode.requestSigned ? signed(uri, signer, unsigned) : fixed(uri, compact));
                        }
                        variants.add(new Variant(mode, count, new Spread(targets)));
                    }
                    for (InstanceProcess process : processes) {
                        URI uri = URI.create("http://127.0.0.1:" + process.port(mode) + "/accounts/bench");
                        eachAlone.add(new Spread(List.of(mode.requestSigned ? signed(uri, signer, unsigned)
                                : fixed(uri, compact))));
                    }
                }
                for (Spread alone : eachAlone) {
                    driver.drive(alone, WARMUP);
                }
                measure(variants, processes, driver, redis, postgresLocal);
            } finally {
                processes.forEach(InstanceProcess::stop);
                deleteKeys(redis, prefix);
            }
            long errors = driver.errorCount();
            System.out.printf("transient client errors, retried: %d over %d answered requests%n", errors,
                    driver.answeredCount());
            driver.errors().forEach((kind, count) -> System.out.printf("  %8d × %s%n", count, kind));
            if (driver.failedCount() > 0) {
                throw new IllegalStateException(driver.failedCount() + " requests failed all " + ATTEMPTS
                        + " attempts: the figures are not reliable");
            }
        }
        BenchTable.print();
    }

    private static void measure(List<Variant> variants, List<InstanceProcess> processes, LoadDriver driver,
            JedisPool redis, boolean postgresLocal) throws Exception {
        for (Variant variant : variants) {
            driver.drive(variant.requests(), WARMUP);
        }
        int n = variants.size();
        Duration slice = MEASURE.dividedBy(ROUNDS);
        double[][] rates = new double[n][ROUNDS];
        long[] answered = new long[n];
        long[] storeCpu = new long[n];
        long[] instancesCpu = new long[n];
        boolean[] storeCpuKnown = new boolean[n];
        Arrays.fill(storeCpuKnown, true);
        for (int round = 0; round < ROUNDS; round++) {
            for (int k = 0; k < n; k++) {
                int i = (k + round) % n;
                Variant variant = variants.get(i);
                List<InstanceProcess> serving = processes.subList(0, variant.instances());
                Map<Long, Long> postgresBefore = variant.mode().jdbc && postgresLocal
                        ? ProcessCpu.localProcessesById("postgres") : null;
                long redisBefore = variant.mode().jdbc ? -1 : redisCpuNanos(redis);
                long instancesBefore = cpuNanos(serving);
                LoadDriver.Samples got = driver.drive(variant.requests(), slice);
                long instancesAfter = cpuNanos(serving);
                long spent;
                if (variant.mode().jdbc) {
                    Map<Long, Long> postgresAfter = postgresBefore == null ? null
                            : ProcessCpu.localProcessesById("postgres");
                    spent = postgresAfter == null ? -1 : ProcessCpu.spent(postgresBefore, postgresAfter);
                } else {
                    long redisAfter = redisCpuNanos(redis);
                    spent = redisBefore < 0 || redisAfter < 0 ? -1 : redisAfter - redisBefore;
                }
                if (spent < 0) {
                    storeCpuKnown[i] = false;
                } else {
                    storeCpu[i] += spent;
                }
                instancesCpu[i] += instancesAfter - instancesBefore;
                answered[i] += got.latencies().length;
                rates[i][round] = got.latencies().length * 1e9 / slice.toNanos();
            }
        }
        for (Variant variant : variants) {
            long[] made = variant.requests().made();
            for (int k = 0; k < made.length; k++) {
                if (made[k] == 0) {
                    throw new IllegalStateException(variant.name() + ": instance " + processes.get(k).name
                            + " was sent no request; the load was not spread");
                }
            }
        }
        BenchChart chart = BenchChart.named("instances", "Two application instances against one on the same stores:"
                + " admitted PUTs through the servlet filter, " + THREADS + " client threads in all", "application instances")
                .withLinearX();
        BenchChart.Panel throughput = chart.panel("admitted PUTs/s");
        BenchChart.Panel storePanel = chart.panel("store server CPU µs per request");
        BenchChart.Panel instancesPanel = chart.panel("instances' CPU µs per request");
        System.out.printf("%-42s %10s %8s %16s %14s %16s  %s%n", "variant", "req/s", "2 / 1", "rounds req/s",
                "store CPU µs", "instances CPU µs", "requests per instance (warm-up included)");
        double[] median = new double[n];
        for (int i = 0; i < n; i++) {
            median[i] = median(rates[i]);
        }
        for (int i = 0; i < n; i++) {
            Variant variant = variants.get(i);
            int single = indexOf(variants, variant.mode(), 1);
            double ratio = variant.instances() == 1 || median[single] == 0 ? Double.NaN : median[i] / median[single];
            double storeMicros = !storeCpuKnown[i] || answered[i] == 0 ? Double.NaN : storeCpu[i] / 1e3 / answered[i];
            double instancesMicros = answered[i] == 0 ? Double.NaN : instancesCpu[i] / 1e3 / answered[i];
            double singleStoreMicros = !storeCpuKnown[single] || answered[single] == 0 ? Double.NaN
                    : storeCpu[single] / 1e3 / answered[single];
            System.out.printf("%-42s %10.0f %8s %16s %14.1f %16.1f  %s%n", variant.name(), median[i],
                    Double.isNaN(ratio) ? "–" : String.format("%.2f", ratio),
                    String.format("%.0f..%.0f", Arrays.stream(rates[i]).min().orElse(0),
                            Arrays.stream(rates[i]).max().orElse(0)), storeMicros, instancesMicros,
                    Arrays.toString(variant.requests().made()));
            throughput.point(variant.mode().label, variant.instances(), median[i]);
            storePanel.point(variant.mode().label, variant.instances(), storeMicros);
            instancesPanel.point(variant.mode().label, variant.instances(), instancesMicros);
            String threads = variant.instances() == 1 ? THREADS + " client threads"
                    : THREADS + " client threads, " + THREADS / variant.instances() + " per instance";
            String anchor = variant.instances() == 1 ? "–" : variants.get(single).name();
            String server = variant.mode().jdbc ? "PostgreSQL" : "Redis";
            BenchTable.row("http-instances", "PUT, " + threads + ": " + variant.name(), median[i], "req/s", anchor,
                    ratio, Double.NaN, instancesMicros, Double.NaN);
            BenchTable.row("http-instances", server + " CPU per request, " + variant.name(), storeMicros, "µs", anchor,
                    variant.instances() == 1 ? Double.NaN : storeMicros / singleStoreMicros, Double.NaN);
        }
        chart.write();
    }

    private static int indexOf(List<Variant> variants, StoreMode mode, int instances) {
        for (int i = 0; i < variants.size(); i++) {
            if (variants.get(i).mode() == mode && variants.get(i).instances() == instances) {
                return i;
            }
        }
        throw new IllegalArgumentException("no variant " + mode + " with " + instances + " instances");
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    /**
     * The client threads spread over the instances: each thread sends every request to one instance, the threads
     * taking the instances in turn (8 threads, 2 instances: 4 each), as callers behind a balancer that keeps each
     * connection on one instance. Counts the requests made for each instance.
     */
    private static final class Spread implements Supplier<HttpRequest> {

        private final List<Supplier<HttpRequest>> instances;
        private final LongAdder[] made;
        private final AtomicInteger next = new AtomicInteger();
        private final ThreadLocal<Integer> own = ThreadLocal.withInitial(() -> next.getAndIncrement());

        Spread(List<Supplier<HttpRequest>> instances) {
            this.instances = List.copyOf(instances);
            this.made = new LongAdder[instances.size()];
            Arrays.setAll(made, i -> new LongAdder());
        }

        @Override
        public HttpRequest get() {
            int instance = own.get() % instances.size();
            made[instance].increment();
            return instances.get(instance).get();
        }

        /** The requests made so far for each instance. */
        long[] made() {
            return Arrays.stream(made).mapToLong(LongAdder::sum).toArray();
        }
    }

    private static Supplier<HttpRequest> fixed(URI uri, String header) {
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT)
                .PUT(HttpRequest.BodyPublishers.noBody()).header("Fencing-Token", header).build();
        return () -> request;
    }

    /** A new signature and nonce for every request, made on the client thread as a real caller would. */
    private static Supplier<HttpRequest> signed(URI uri, RequestSignatures signer, String fencing) {
        return () -> {
            HttpRequest.Builder builder = HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT)
                    .PUT(HttpRequest.BodyPublishers.noBody());
            signer.sign("PUT", uri, fencing, new byte[0]).forEach(builder::header);
            return builder.build();
        };
    }

    /** CPU time so far of the instances' processes, in nanoseconds. */
    private static long cpuNanos(List<InstanceProcess> processes) {
        long sum = 0;
        for (InstanceProcess process : processes) {
            sum += process.cpuNanos();
        }
        return sum;
    }

    /** CPU time of the Redis server so far (INFO cpu: user + system), -1 when it cannot be read. */
    private static long redisCpuNanos(JedisPool redis) {
        try (Jedis connection = redis.getResource()) {
            return ProcessCpu.redisServerNanos(connection.info("cpu"));
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** Removes the run's Redis keys (marks and nonces under {@code prefix}). */
    private static void deleteKeys(JedisPool redis, String prefix) {
        try (Jedis connection = redis.getResource()) {
            ScanParams match = new ScanParams().match(prefix + "*").count(1000);
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> page = connection.scan(cursor, match);
                if (!page.getResult().isEmpty()) {
                    connection.del(page.getResult().toArray(String[]::new));
                }
                cursor = page.getCursor();
            } while (!ScanParams.SCAN_POINTER_START.equals(cursor));
        } catch (RuntimeException e) {
            System.out.println("could not remove the Redis keys under " + prefix + ": " + e);
        }
    }

    /** A daemon that stops the JVM at the deadline, whatever the benchmark or its shutdown is doing. */
    private static void startDeadline(String what, Duration deadline) {
        BenchDeadline.after(deadline)
                .start(System.out, "%n%s: its deadline of %d s passed; stopping.%n", what, deadline.toSeconds());
    }

    private static Duration seconds(String property, String fallback) {
        return Duration.ofMillis((long) (1000 * Double.parseDouble(System.getProperty(property, fallback))));
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value.trim();
    }

    /**
     * An application instance started as a JVM process of its own ({@link Instance}); its output goes to
     * {@code target/bench-instance-NAME.log} of the module. It stops when its input closes: when this JVM ends, however.
     */
    private static final class InstanceProcess {

        private final String name;
        private final Process process;
        private final Path log;
        private final CompletableFuture<Map<String, Integer>> ports = new CompletableFuture<>();

        private InstanceProcess(String name, Process process, Path log) {
            this.name = name;
            this.process = process;
            this.log = log;
        }

        static InstanceProcess start(String name, String schema, String prefix, Duration deadline) throws IOException {
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            if (!HEAP.isEmpty()) {
                command.add(HEAP);
            }
            command.addAll(List.of("-Dbench.instances.deadline=" + deadline.toSeconds(), "-cp",
                    System.getProperty("java.class.path"), Instance.class.getName(), name, schema, prefix,
                    Integer.toString(THREADS)));
            Path log = Path.of("target", "bench-instance-" + name + ".log").toAbsolutePath();
            Files.createDirectories(log.getParent());
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            InstanceProcess instance = new InstanceProcess(name, process, log);
            Thread reader = new Thread(instance::readOutput, "bench-instance-" + name + "-output");
            reader.setDaemon(true);
            reader.start();
            return instance;
        }

        /** Copies the instance's output into its log and takes its ports from it. */
        private void readOutput() {
            try (BufferedReader output = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8)); PrintWriter file = new PrintWriter(Files.newBufferedWriter(log), true)) {
                for (String line; (line = output.readLine()) != null; ) {
                    file.println(line);
                    if (line.startsWith(PORTS)) {
                        Map<String, Integer> byMode = new LinkedHashMap<>();
                        for (String entry : line.substring(PORTS.length()).trim().split(" ")) {
                            String[] parts = entry.split("=");
                            byMode.put(parts[0], Integer.parseInt(parts[1]));
                        }
                        ports.complete(byMode);
                    }
                }
            } catch (IOException | RuntimeException e) {
                ports.completeExceptionally(e);
            }
            ports.completeExceptionally(new IllegalStateException("instance " + name + " ended (exit status "
                    + exitStatus() + ") before its servers listened; its output: " + log));
        }

        private String exitStatus() {
            try {
                return process.waitFor(5, TimeUnit.SECONDS) ? Integer.toString(process.exitValue()) : "none yet";
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "unknown";
            }
        }

        void awaitPorts() throws Exception {
            try {
                Map<String, Integer> byMode = ports.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                System.out.printf("instance %s (process %d): ports %s, output in %s%n", name, process.pid(), byMode,
                        log);
            } catch (TimeoutException e) {
                throw new IllegalStateException("instance " + name + " did not listen within " + START_TIMEOUT.toSeconds()
                        + " s; its output: " + log, e);
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
            }
        }

        int port(StoreMode mode) {
            Integer port = ports.join().get(mode.key());
            if (port == null) {
                throw new IllegalStateException("instance " + name + " named no port for " + mode.key() + ": "
                        + ports.join());
            }
            return port;
        }

        /** The process's CPU time so far (user + system); fails when it cannot be read or the process has ended. */
        long cpuNanos() {
            if (!process.isAlive()) {
                throw new IllegalStateException("instance " + name + " ended (exit status " + process.exitValue()
                        + "); its output: " + log);
            }
            return process.info().totalCpuDuration().orElseThrow(() -> new IllegalStateException(
                    "the CPU time of instance " + name + " (process " + process.pid() + ") cannot be read")).toNanos();
        }

        void stop() {
            try {
                process.getOutputStream().close();
                if (!process.waitFor(15, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (IOException e) {
                process.destroyForcibly();
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * One application instance, in a JVM of its own: a server (application context of {@link TestApp}) per
     * {@link StoreMode}, each with its own filter and its own store client: a Hikari pool on the run's schema for the
     * JDBC store, a Lettuce connection (Spring Data Redis, the Boot starter's default) for the Redis store, on the
     * run's key prefix. Prints its ports ({@value #PORTS}), then serves until its input closes, or its deadline.
     *
     * <p>Arguments: name, PostgreSQL schema, Redis key prefix, JDBC pool size.
     */
    static final class Instance {

        private Instance() {
        }

        public static void main(String[] args) {
            Duration deadline = seconds("bench.instances.deadline", "600").plusSeconds(30);
            startDeadline("instance " + args[0], deadline);
            int status = 1;
            List<AutoCloseable> resources = new ArrayList<>();
            try {
                serve(args[0], args[1], args[2], Integer.parseInt(args[3]), resources);
                status = 0;
            } catch (Throwable e) {
                System.out.println("instance " + (args.length > 0 ? args[0] : "?") + " FAILED: " + e);
                e.printStackTrace(System.out);
            } finally {
                for (int i = resources.size() - 1; i >= 0; i--) {
                    AutoCloseable resource = resources.get(i);
                    try {
                        resource.close();
                    } catch (Exception e) {
                        System.out.println("closing " + resource + ": " + e);
                    }
                }
                System.out.flush();
                System.exit(status);
            }
        }

        private static void serve(String name, String schema, String prefix, int poolSize,
                List<AutoCloseable> resources) throws Exception {
            Instances instances = new Instances();
            resources.add(instances);
            URI redis = URI.create(REDIS_URL);
            Map<String, Integer> ports = new LinkedHashMap<>();
            for (StoreMode mode : StoreMode.values()) {
                Map<String, Object> properties = new LinkedHashMap<>(Instances.defaults());
                properties.put("test.request-signatures", Boolean.toString(mode.requestSigned));
                DataSource pool;
                TestWiring.CustomStore store;
                if (mode.jdbc) {
                    properties.put("test.store", "jdbc");
                    HikariDataSource hikari = pool(schema, poolSize, name + "-" + mode.key());
                    resources.add(hikari);
                    pool = hikari;
                    store = null;
                } else {
                    LettuceConnectionFactory lettuce = new LettuceConnectionFactory(redis.getHost(),
                            redis.getPort() > 0 ? redis.getPort() : 6379);
                    lettuce.afterPropertiesSet();
                    lettuce.start();
                    resources.add(lettuce::destroy);
                    RedisHighWaterStore redisStore = redisStore(lettuce, prefix);
                    pool = null;
                    store = () -> redisStore;
                }
                ports.put(mode.key(), Instances.port(instances.start(name + "-" + mode.key(), properties, ctx -> {
                    if (pool != null) {
                        // The pool is closed with the instance, after its contexts.
                        ctx.registerBean(DataSource.class, () -> pool, definition -> definition.setDestroyMethodName(""));
                    }
                    if (store != null) {
                        ctx.registerBean(TestWiring.CustomStore.class, () -> store);
                    }
                })));
            }
            StringBuilder line = new StringBuilder(PORTS);
            ports.forEach((mode, port) -> line.append(' ').append(mode).append('=').append(port));
            System.out.println(line);
            System.out.flush();
            // The handlers record every request that reached them; nobody reads that here.
            Thread forget = new Thread(() -> {
                while (true) {
                    TestApp.REACHED.clear();
                    try {
                        Thread.sleep(200);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "bench-instance-forget-reached");
            forget.setDaemon(true);
            forget.start();
            // Serves until the benchmark closes this process's input (or ends).
            while (System.in.read() >= 0) {
                // nothing is sent; reading only waits for the end
            }
            System.out.println("instance " + name + ": input closed, stopping");
        }

        /**
         * The Redis store on {@code lettuce}, its connection opened first: the store reads its floor when it starts,
         * within {@link RedisHighWaterStore#CALL_TIMEOUT}, which a JVM still starting its servers beside another
         * instance's on two CPUs can miss, so that reading is tried a few times.
         */
        private static RedisHighWaterStore redisStore(LettuceConnectionFactory lettuce, String prefix)
                throws InterruptedException {
            try (var connection = lettuce.getConnection()) {
                connection.ping();
            }
            RuntimeException last = null;
            for (int attempt = 1; attempt <= 5; attempt++) {
                try {
                    // Token 42 every time: the store's floor (set when it starts) must not be above it.
                    return RedisHighWaterStore.of(SpringDataRedisScriptClient.of(lettuce), prefix,
                            TokenBound.atMost(42));
                } catch (RuntimeException e) {
                    last = e;
                    System.out.println("Redis store on " + REDIS_URL + ", attempt " + attempt + ": " + e);
                    Thread.sleep(1000);
                }
            }
            throw new IllegalStateException("the Redis store on " + REDIS_URL + " did not start in 5 attempts", last);
        }

        private static HikariDataSource pool(String schema, int size, String name) {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(BenchPostgres.URL);
            config.setUsername(BenchPostgres.USER);
            config.setPassword(BenchPostgres.PASSWORD);
            config.setSchema(schema);
            config.setMaximumPoolSize(size);
            config.setPoolName(name);
            return new HikariDataSource(config);
        }
    }
}
