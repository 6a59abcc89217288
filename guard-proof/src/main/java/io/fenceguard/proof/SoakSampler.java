package io.fenceguard.proof;

import io.fenceguard.test.support.RedisClusterProcesses;
import io.fenceguard.test.support.RedisProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Samples, every few seconds of a soak, what could leak: each instance's live heap after GC, heap in use, live
 * threads and pool connections (its {@code /actuator/metrics}), the keys on each Redis master ({@code DBSIZE})
 * and the rows of the guard's tables; written as {@code soak.csv} and drawn as {@code soak.png} on {@link #close()}.
 */
final class SoakSampler implements AutoCloseable {

    /** The guard's tables whose rows could pile up, and the example's outbox (rows are marked sent, not deleted). */
    static final List<String> TABLES = List.of("fenceguard_gate", "fenceguard_http_high_water", "fenceguard_http_nonce",
            "fenceguard_http_idempotency", "fenceguard_outbox", "audit_outbox");
    private static final Map<String, String> METRICS = Map.of(
            "live_mb", "jvm.gc.live.data.size", "heap_mb", "jvm.memory.used?tag=area:heap",
            "threads", "jvm.threads.live", "connections", "hikaricp.connections");

    private final List<ExampleInstance> instances;
    private final RedisClusterProcesses redis;
    private final LedgerCheck ledger;
    private final Path out;
    private final long startNanos = System.nanoTime();
    private final List<Map<String, Double>> samples = new ArrayList<>();
    private final ObjectMapper json = new ObjectMapper();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "soak-sampler");
        thread.setDaemon(true);
        return thread;
    });

    private SoakSampler(List<ExampleInstance> instances, RedisClusterProcesses redis, LedgerCheck ledger, Path out) {
        this.instances = instances;
        this.redis = redis;
        this.ledger = ledger;
        this.out = out;
    }

    static SoakSampler start(List<ExampleInstance> instances, RedisClusterProcesses redis, LedgerCheck ledger,
            Duration every, Path out) {
        SoakSampler sampler = new SoakSampler(instances, redis, ledger, out);
        sampler.timer.scheduleAtFixedRate(sampler::sample, 0, every.toMillis(), TimeUnit.MILLISECONDS);
        return sampler;
    }

    private void sample() {
        Map<String, Double> row = new LinkedHashMap<>();
        row.put("minutes", (System.nanoTime() - startNanos) / 60e9);
        for (ExampleInstance instance : instances) {
            METRICS.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(metric -> {
                double value = metric(instance, metric.getValue());
                row.put(instance.name() + "." + metric.getKey(), metric.getKey().endsWith("_mb") ? value / 1e6 : value);
            });
        }
        List<RedisProcess> nodes = redis.nodes();
        for (int i = 0; i < nodes.size(); i++) {
            row.put("redis" + i + ".keys", masterKeys(nodes.get(i)));
        }
        for (String table : TABLES) {
            row.put("rows." + table, rows(table));
        }
        synchronized (samples) {
            samples.add(row);
        }
    }

    /** A metric's value, or NaN when the instance does not answer (killed, paused, restarting). */
    private double metric(ExampleInstance instance, String name) {
        try {
            var response = instance.send("GET", "/actuator/metrics/" + name, null, Duration.ofSeconds(3));
            if (response.statusCode() != 200) {
                return Double.NaN;
            }
            JsonNode measurements = json.readTree(response.body()).path("measurements");
            return measurements.isEmpty() ? Double.NaN : measurements.get(0).path("value").asDouble();
        } catch (IOException | RuntimeException down) {
            return Double.NaN;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Double.NaN;
        }
    }

    /** DBSIZE of a node that is master now; a replica's copy is not counted (NaN), nor a node that is down. */
    private static double masterKeys(RedisProcess node) {
        try {
            if (!node.isAlive() || !String.valueOf(node.call("INFO", "replication")).contains("role:master")) {
                return Double.NaN;
            }
            return ((Number) node.call("DBSIZE")).doubleValue();
        } catch (RuntimeException down) {
            return Double.NaN;
        }
    }

    private double rows(String table) {
        try {
            return ledger.count("SELECT COUNT(*) FROM " + table);
        } catch (Exception down) {
            return Double.NaN;
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        timer.shutdown();
        timer.awaitTermination(30, TimeUnit.SECONDS);
        sample();   // the end figures, after the last quiet period
        List<Map<String, Double>> rows;
        synchronized (samples) {
            rows = List.copyOf(samples);
        }
        List<String> lines = new ArrayList<>();
        lines.add(String.join(",", rows.get(0).keySet()));
        for (Map<String, Double> row : rows) {
            lines.add(String.join(",", row.values().stream()
                    .map(v -> v.isNaN() ? "" : (v == Math.rint(v) ? String.valueOf(v.longValue()) : String.format("%.2f", v)))
                    .toList()));
        }
        Files.write(out.resolve("soak.csv"), lines);
        ProofChart.soak(rows, out.resolve("soak.png"));
    }
}
