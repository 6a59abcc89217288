package io.fenceguard.jdbc.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.db.FenceguardTriggers;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The cost of trigger mode against row rewriting, on PostgreSQL and (when configured) MariaDB, same run,
 * same pool: raw UPDATE (the anchor, a table without triggers), the guard's rewrite on that table, and
 * trigger mode (rewrite plus the database's triggers, on a table of its own with the same rows). Each
 * shape runs with 100 statements per connection checkout in one transaction, and with one auto-committed
 * statement per checkout (trigger mode sets the session's token after a checkout and clears it at close).
 * Each thread updates random rows of its own slice of the table, so transactions never deadlock.
 *
 * <pre>
 * ./mvnw -B -pl guard-jdbc -am -Dbench=jdbc -DskipTests verify
 *   env GUARD_TEST_POSTGRES_URL (and GUARD_TEST_MARIADB_URL for MariaDB), _USER, _PASSWORD
 *   -Dbench.jdbc.seconds=3 -Dbench.jdbc.threads=4
 * </pre>
 */
public final class TriggerModeBenchmark {

    private static final String PLAIN = "fg_bench_plain";
    private static final String TRIGGERED = "fg_bench_trig";
    private static final int ROWS = 10_000;
    private static final int THREADS = Integer.getInteger("bench.jdbc.threads", 4);
    private static final long ROUND_MILLIS = (long) (1000 * Double.parseDouble(System.getProperty("bench.jdbc.seconds", "3")));
    private static final int ROUNDS = Integer.getInteger("bench.jdbc.rounds", 4);

    public static void main(String[] args) {
        int status = 0;
        try {
            run("PostgreSQL", BenchDatabase.pool(10));
            HikariDataSource mariadb = BenchDatabase.mariadbPool(10);
            if (mariadb == null) {
                System.out.println("\nMariaDB: skipped, GUARD_TEST_MARIADB_URL is not set");
            } else {
                run("MariaDB", mariadb);
            }
        } catch (Throwable e) {
            e.printStackTrace();
            status = 1;
        }
        System.exit(status);
    }

    private static void run(String name, HikariDataSource raw) throws Exception {
        try (raw) {
            System.out.println("\ndatabase: " + BenchDatabase.describe(raw));
            boolean postgres = name.equals("PostgreSQL");
            for (String table : new String[] {PLAIN, TRIGGERED}) {
                execute(raw, "DROP TABLE IF EXISTS " + table,
                        "CREATE TABLE " + table + " (id INT PRIMARY KEY, v BIGINT NOT NULL, current_token BIGINT)",
                        postgres ? "INSERT INTO " + table + " SELECT g, 0, NULL FROM generate_series(1, " + ROWS + ") g"
                                : "INSERT INTO " + table + " SELECT seq, 0, NULL FROM seq_1_to_" + ROWS);
            }
            FenceguardTriggers.install(raw, TRIGGERED);
            LeaseContext.Scope scope = LeaseContext.bind(Lease.presented(Fence.of("bench", "1"), "bench"));
            FencedDataSource rewrite = FencedDataSource.wrap(raw, FencingConfig.builder().fence(PLAIN).build());
            FencedDataSource triggerMode = FencedDataSource.wrap(raw,
                    FencingConfig.builder().fence(TRIGGERED).triggerMode(true).build());
            Shape[] shapes = {
                new Shape("raw UPDATE", raw, PLAIN),
                new Shape("rewrite", rewrite, PLAIN),
                new Shape("trigger mode", triggerMode, TRIGGERED)};
            System.out.printf("%nfenceguard trigger mode benchmark (%s, %d threads, pool of 10, %d rows)%n", name,
                    THREADS, ROWS);
            for (int perCheckout : new int[] {100, 1}) {
                for (Shape shape : shapes) {
                    updates(shape, perCheckout, 500);
                }
                double[][] rates = new double[shapes.length][ROUNDS];
                for (int round = 0; round < ROUNDS; round++) {
                    for (int i = 0; i < shapes.length; i++) {
                        // rotate the order so no shape always runs first
                        int s = (i + round) % shapes.length;
                        rates[s][round] = updates(shapes[s], perCheckout, ROUND_MILLIS);
                    }
                }
                System.out.printf(perCheckout == 1 ? "1 auto-committed UPDATE per connection checkout:%n"
                        : "%d UPDATEs per connection checkout, one transaction:%n", perCheckout);
                for (int s = 0; s < shapes.length; s++) {
                    double[] ratios = new double[ROUNDS];
                    for (int round = 0; round < ROUNDS; round++) {
                        ratios[round] = rates[s][round] / rates[0][round];
                    }
                    System.out.printf("  %-13s %,10.0f statements/s   / raw UPDATE %6.3f  (median of %d rounds; ratios %s)%n",
                            shapes[s].name, median(rates[s]), median(ratios), ROUNDS,
                            Arrays.toString(Arrays.stream(ratios).map(r -> Math.round(r * 1000) / 1000.0).toArray()));
                    if (s > 0) {
                        io.fenceguard.test.support.bench.BenchTable.row("jdbc", name + " " + shapes[s].name + ", "
                                + (perCheckout == 1 ? "1 auto-committed UPDATE" : perCheckout + " UPDATEs in one transaction")
                                + " per checkout, " + THREADS + " threads", median(rates[s]), "statements/s",
                                "raw UPDATE", median(ratios), Double.NaN);
                    }
                }
            }
            scope.close();
            FenceguardTriggers.uninstall(raw, TRIGGERED);
            execute(raw, "DROP TABLE IF EXISTS " + PLAIN, "DROP TABLE IF EXISTS " + TRIGGERED);
        }
    }

    private record Shape(String name, javax.sql.DataSource dataSource, String table) {
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** Statements per second from {@link #THREADS} threads for {@code millis}, {@code perCheckout} per connection. */
    private static double updates(Shape shape, int perCheckout, long millis) throws Exception {
        String sql = "UPDATE " + shape.table() + " SET v = v + ? WHERE id = ?";
        LongAdder done = new LongAdder();
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        Future<?>[] workers = new Future<?>[THREADS];
        long started = System.nanoTime();
        int slice = ROWS / THREADS;
        for (int t = 0; t < THREADS; t++) {
            int first = t * slice + 1;
            workers[t] = pool.submit(LeaseContext.wrap(() -> {
                while (System.nanoTime() < end) {
                    try (Connection c = shape.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
                        c.setAutoCommit(perCheckout == 1);
                        for (int i = 0; i < perCheckout; i++) {
                            ps.setInt(1, 1);
                            ps.setInt(2, ThreadLocalRandom.current().nextInt(first, first + slice));
                            if (ps.executeUpdate() != 1) {
                                throw new IllegalStateException(shape.name() + " updated no row");
                            }
                            done.increment();
                        }
                        if (perCheckout > 1) {
                            c.commit();
                            c.setAutoCommit(true);
                        }
                    }
                }
                return null;
            }));
        }
        try {
            for (Future<?> worker : workers) {
                worker.get();
            }
        } finally {
            pool.shutdownNow();
        }
        return done.sum() / ((System.nanoTime() - started) / 1e9);
    }

    private static void execute(javax.sql.DataSource dataSource, String... statements) throws Exception {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }
}
