package io.fenceguard.http.bench;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.http.SigningKeys;
import io.fenceguard.http.support.Instances;
import io.fenceguard.http.support.TestApp;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;

/**
 * Requests/s and median latency of PUT /accounts/bench through the fencing filter (in-memory and
 * JDBC stores, signed header, same token each time, so every request consults the store) against
 * the same endpoint with the filter disabled. The header's parse and verification alone are the JMH
 * micro-benchmark {@link FenceHeaderBenchmark}.
 *
 * <pre>
 * ./mvnw -B -pl guard-http-filter -am -Pbench -DskipTests verify
 *   env GUARD_TEST_POSTGRES_URL, _USER, _PASSWORD (default jdbc:postgresql://127.0.0.1:5432/test, postgres)
 *   -Dbench.http.seconds=8 -Dbench.http.warmup=3 -Dbench.http.threads=8
 * </pre>
 */
public final class HttpGuardBenchmark {

    private static final int THREADS = Integer.getInteger("bench.http.threads", 8);
    private static final Duration WARMUP = seconds("bench.http.warmup", "3");
    private static final Duration MEASURE = seconds("bench.http.seconds", "8");

    private static Duration seconds(String property, String fallback) {
        return Duration.ofMillis((long) (1000 * Double.parseDouble(System.getProperty(property, fallback))));
    }

    public static void main(String[] args) throws Exception {
        SigningKeys keys = SigningKeys.of(Map.of("k1", Base64.getDecoder().decode(Instances.KEY_A)), "k1");
        String header = keys.header(ResourceName.of("account:bench"), FencingToken.of(42)).value();
        try (BenchPostgres postgres = new BenchPostgres(); Instances instances = new Instances()) {
            Map<String, Object> open = new LinkedHashMap<>(Instances.defaults());
            open.put("guard.http.server.enabled", "false");
            Map<String, Object> memory = new LinkedHashMap<>(Instances.defaults());
            Map<String, Object> jdbc = new LinkedHashMap<>(Instances.defaults());
            jdbc.put("guard.http.store.type", "jdbc");
            int openPort = Instances.port(instances.start("open", open, ctx -> { }));
            int memoryPort = Instances.port(instances.start("memory", memory, ctx -> { }));
            int jdbcPort = Instances.port(instances.start("jdbc", jdbc,
                    ctx -> ctx.registerBean(DataSource.class, () -> postgres.pool(THREADS))));

            System.out.printf("%nfenceguard HTTP benchmark: PUT /accounts/bench, %d client threads (java.net.http, "
                    + "HTTP/1.1), %.1f s after %.1f s warm-up; JDBC store on %s%n", THREADS,
                    MEASURE.toMillis() / 1e3, WARMUP.toMillis() / 1e3, postgres.describe());
            long[] unguarded = run(openPort, null);
            long[] memoryResult = run(memoryPort, header);
            long[] jdbcResult = run(jdbcPort, header);
            System.out.printf("%-32s %10s %10s %16s%n", "endpoint", "req/s", "p50 µs", "vs unguarded");
            report("unguarded", unguarded, unguarded);
            report("guarded, in-memory store", memoryResult, unguarded);
            report("guarded, JDBC store (PostgreSQL)", jdbcResult, unguarded);
        }
        System.exit(0);
    }

    private static void report(String name, long[] result, long[] unguarded) {
        System.out.printf("%-32s %10d %10d %16.2f%n", name, result[0], result[1], (double) result[0] / unguarded[0]);
    }

    /** {requests per second, median latency in µs}. */
    private static long[] run(int port, String header) throws Exception {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/accounts/bench"))
                .PUT(HttpRequest.BodyPublishers.noBody());
        if (header != null) {
            builder.header("Fencing-Token", header);
        }
        HttpRequest request = builder.build();
        drive(client, request, WARMUP);
        TestApp.REACHED.clear();
        List<long[]> latencies = drive(client, request, MEASURE);
        int count = latencies.stream().mapToInt(l -> (int) l[0]).sum();
        long[] all = new long[count];
        int at = 0;
        for (long[] l : latencies) {
            System.arraycopy(l, 1, all, at, (int) l[0]);
            at += (int) l[0];
        }
        java.util.Arrays.sort(all);
        return new long[] {count * 1_000_000_000L / MEASURE.toNanos(), all[count / 2] / 1_000};
    }

    private static List<long[]> drive(HttpClient client, HttpRequest request, Duration duration) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        long end = System.nanoTime() + duration.toNanos();
        List<Future<long[]>> futures = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            futures.add(pool.submit(() -> {
                long[] samples = new long[1 << 20];
                int n = 0;
                while (System.nanoTime() < end && n < samples.length - 1) {
                    long start = System.nanoTime();
                    HttpResponse<Void> response = client.send(request, HttpResponse.BodyHandlers.discarding());
                    if (response.statusCode() != 200) {
                        throw new IllegalStateException("status " + response.statusCode());
                    }
                    samples[++n] = System.nanoTime() - start;
                }
                samples[0] = n;
                return samples;
            }));
        }
        List<long[]> results = new ArrayList<>();
        for (Future<long[]> future : futures) {
            results.add(future.get());
        }
        pool.shutdown();
        return results;
    }
}
