package io.fenceguard.http.filter.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.JdbcHighWaterStore;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.test.support.bench.BenchChart;
import io.fenceguard.test.support.bench.BenchTable;
import io.fenceguard.test.support.bench.ProcessCpu;
import java.net.URI;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The JDBC high-water store's cost curve: one thread admitting a continuing token (the request a compact-signed
 * filter sends the store) over 1, 10^2, 10^4 and 10^6 resources whose marks exist beforehand (inserted by one
 * statement, so a million costs seconds, not a million admissions), on a fresh schema of the run's PostgreSQL:
 * admissions/s and PostgreSQL CPU per admission (its processes' CPU from /proc when it runs on this machine, of the
 * processes alive at the end of each point; any other client of that server counts too). A picture ({@code bench-jdbc-resources.png}, {@link BenchChart}) and rows
 * of the table; the JVM always exits (1 on a failure).
 *
 * <pre>
 * ./mvnw -B -pl guard-http-filter -am -Dbench=http -DskipTests verify   (runs it after the HTTP benchmark)
 *   -Dbench.curve.seconds=2 -Dbench.curve.resources=1,100,10000,1000000
 * </pre>
 */
public final class JdbcAdmissionCostCurve {

    private JdbcAdmissionCostCurve() {
    }

    public static void main(String[] args) {
        int status = 1;
        try {
            curve();
            status = 0;
        } catch (Throwable e) {
            System.out.println("JDBC admission cost curve FAILED: " + e);
            e.printStackTrace(System.out);
        } finally {
            System.out.flush();
            System.exit(status);
        }
    }

    private static void curve() throws Exception {
        double seconds = Double.parseDouble(System.getProperty("bench.curve.seconds", "2"));
        int[] counts = Arrays.stream(System.getProperty("bench.curve.resources", "1,100,10000,1000000").split(","))
                .map(String::trim).filter(v -> !v.isEmpty()).mapToInt(Integer::parseInt).toArray();
        String host = URI.create(BenchPostgres.URL.substring("jdbc:".length())).getHost();
        boolean local = "127.0.0.1".equals(host) || "localhost".equals(host);
        BenchChart chart = BenchChart.named("jdbc-resources", "PostgreSQL: 1 thread admitting a continuing token as the"
                + " resources with marks grow (JDBC high-water store)", "resources");
        BenchChart.Panel throughput = chart.panel("admissions/s");
        BenchChart.Panel serverCpu = chart.panel("PostgreSQL CPU µs per admission");
        try (BenchPostgres postgres = new BenchPostgres(); HikariDataSource pool = postgres.pool(2)) {
            System.out.println("JDBC admission cost curve on " + postgres.describe() + ", schema " + postgres.schema);
            HighWaterStore store = JdbcHighWaterStore.of(pool);
            for (int n : counts) {
                try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                    s.execute("TRUNCATE " + JdbcHighWaterStore.DEFAULT_TABLE);
                    s.execute("INSERT INTO " + JdbcHighWaterStore.DEFAULT_TABLE + " (resource, token) SELECT 'c-' || g, 1"
                            + " FROM generate_series(0, " + (n - 1) + ") g");
                    s.execute("ANALYZE " + JdbcHighWaterStore.DEFAULT_TABLE);
                }
                SplittableRandom random = new SplittableRandom(n);
                long warmupEnd = System.nanoTime() + 500_000_000L;
                while (System.nanoTime() < warmupEnd) {
                    admit(store, random.nextInt(n));
                }
                Map<Long, Long> server = local ? ProcessCpu.localProcessesById("postgres") : null;
                long client = ProcessCpu.nanos();
                long start = System.nanoTime();
                long end = start + (long) (seconds * 1e9);
                long ops = 0;
                while (System.nanoTime() < end) {
                    admit(store, random.nextInt(n));
                    ops++;
                }
                double rate = ops / ((System.nanoTime() - start) / 1e9);
                Map<Long, Long> serverAfter = local ? ProcessCpu.localProcessesById("postgres") : null;
                double serverMicros = server == null || serverAfter == null ? Double.NaN
                        : ProcessCpu.spent(server, serverAfter) / 1e3 / ops;
                double clientMicros = (ProcessCpu.nanos() - client) / 1e3 / ops;
                System.out.printf("%,9d resources: %.0f admissions/s, PostgreSQL CPU %.1f µs and client CPU %.1f µs per"
                        + " admission%n", n, rate, serverMicros, clientMicros);
                throughput.point("admission (JDBC store)", n, rate);
                serverCpu.point("admission (JDBC store)", n, serverMicros);
                BenchTable.row("http-scale", String.format("admission (JDBC store), 1 thread, %,d resources", n), rate,
                        "ops/s", "–", Double.NaN, Double.NaN, clientMicros, Double.NaN);
                BenchTable.row("http-scale", String.format("PostgreSQL CPU per admission, %,d resources", n),
                        serverMicros, "µs", "–", Double.NaN, Double.NaN);
            }
        }
        chart.write();
        BenchTable.print();
    }

    private static void admit(HighWaterStore store, int resource) {
        if (!store.admit(new Fence(ResourceName.of("c-" + resource), FencingToken.of(42))).admitted()) {
            throw new IllegalStateException("token 42 refused on c-" + resource + ": the marks were written as 1");
        }
    }
}
