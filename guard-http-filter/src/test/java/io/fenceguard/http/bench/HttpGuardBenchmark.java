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
import java.util.Arrays;
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
 * the same endpoint with the filter disabled. All three are warmed up first, then measured in rounds in a
 * rotating order (so neither JIT warm-up nor a drift in machine load favours one); figures are over all
 * rounds. The header's parse and verification alone are the JMH micro-benchmark {@link FenceHeaderBenchmark}.
 *
 * <pre>
 * ./mvnw -B -pl guard-http-filter -am -Pbench -DskipTests verify
 *   env GUARD_TEST_POSTGRES_URL, _USER, _PASSWORD (default jdbc:postgresql://127.0.0.1:5432/test, postgres)
 *   -Dbench.http.seconds=8 (per endpoint, over all rounds) -Dbench.http.rounds=4 -Dbench.http.warmup=3
 *   -Dbench.http.threads=8
 * </pre>
 */
public final class HttpGuardBenchmark {

    private static final int THREADS = Integer.getInteger("bench.http.threads", 8);
    private static final Duration WARMUP = seconds("bench.http.warmup", "3");
    private static final Duration MEASURE = seconds("bench.http.seconds", "8");
    private static final int ROUNDS = Math.max(1, Integer.getInteger("bench.http.rounds", 4));

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
                    + "HTTP/1.1), %.1f s per endpoint in %d rounds after %.1f s warm-up each; JDBC store on %s%n",
                    THREADS, MEASURE.toMillis() / 1e3, ROUNDS, WARMUP.toMillis() / 1e3, postgres.describe());
            String[] names = {"unguarded", "guarded, in-memory store", "guarded, JDBC store (PostgreSQL)"};
            HttpRequest[] requests = {request(openPort, null), request(memoryPort, header), request(jdbcPort, header)};
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            for (HttpRequest request : requests) {
                drive(client, request, WARMUP);
            }
            Duration slice = MEASURE.dividedBy(ROUNDS);
            List<List<long[]>> samples = new ArrayList<>();
            double[][] perRound = new double[requests.length][ROUNDS];
            for (int i = 0; i < requests.length; i++) {
                samples.add(new ArrayList<>());
            }
            for (int round = 0; round < ROUNDS; round++) {
                for (int k = 0; k < requests.length; k++) {
                    int i = (k + round) % requests.length;
                    TestApp.REACHED.clear();
                    List<long[]> got = drive(client, requests[i], slice);
                    samples.get(i).addAll(got);
                    perRound[i][round] = got.stream().mapToLong(l -> l[0]).sum() * 1e9 / slice.toNanos();
                }
            }
            long[][] results = new long[requests.length][];
            for (int i = 0; i < requests.length; i++) {
                results[i] = summary(samples.get(i), slice.multipliedBy(ROUNDS));
            }
            System.out.printf("%-32s %10s %10s %16s %20s%n", "endpoint", "req/s", "p50 µs", "vs unguarded",
                    "rounds req/s");
            for (int i = 0; i < requests.length; i++) {
                System.out.printf("%-32s %10d %10d %16.2f %20s%n", names[i], results[i][0], results[i][1],
                        (double) results[i][0] / results[0][0], String.format("%.0f..%.0f",
                                Arrays.stream(perRound[i]).min().orElse(0), Arrays.stream(perRound[i]).max().orElse(0)));
            }
        }
        System.exit(0);
    }

    private static HttpRequest request(int port, String header) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/accounts/bench"))
                .PUT(HttpRequest.BodyPublishers.noBody());
        if (header != null) {
            builder.header("Fencing-Token", header);
        }
        return builder.build();
    }

    /** {requests per second, median latency in µs} of samples from {@link #drive} over {@code measured}. */
    private static long[] summary(List<long[]> latencies, Duration measured) {
        int count = latencies.stream().mapToInt(l -> (int) l[0]).sum();
        long[] all = new long[count];
        int at = 0;
        for (long[] l : latencies) {
            System.arraycopy(l, 1, all, at, (int) l[0]);
            at += (int) l[0];
        }
        Arrays.sort(all);
        return new long[] {count * 1_000_000_000L / measured.toNanos(), count == 0 ? 0 : all[count / 2] / 1_000};
    }

    private static List<long[]> drive(HttpClient client, HttpRequest request, Duration duration) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        long end = System.nanoTime() + duration.toNanos();
        List<Future<long[]>> futures = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            futures.add(pool.submit(() -> {
                long[] samples = new long[1 << 18];
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
                return Arrays.copyOf(samples, n + 1);
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
