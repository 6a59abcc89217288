package io.fenceguard.jdbc.bench;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.Fence;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.Gate;
import io.fenceguard.jdbc.SqlDialect;
import io.fenceguard.jdbc.TestDatabases;
import io.fenceguard.jdbc.internal.JdbcGuard;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * On PostgreSQL: guarded vs raw UPDATE throughput on the same table and pool, the cost of a gate
 * claim per transaction, and the rewrite-plan cache hit time. Run with
 * {@code ./mvnw -B -pl guard-jdbc -Pbench -DskipTests verify} (server from GUARD_TEST_POSTGRES_URL).
 */
public final class JdbcFencingBenchmark {

    private static final String TABLE = "fg_bench";
    private static final String UPDATE = "UPDATE " + TABLE + " SET v = v + ? WHERE id = ?";
    private static final int ROWS = 10_000;
    private static final int THREADS = 4;
    private static final long ROUND_MILLIS = 3_000;

    public static void main(String[] args) throws Exception {
        DataSource raw = TestDatabases.of(SqlDialect.POSTGRESQL);
        TestDatabases.execute(raw, "DROP TABLE IF EXISTS " + TABLE,
                "CREATE TABLE " + TABLE + " (id INT PRIMARY KEY, v BIGINT NOT NULL, current_token BIGINT)",
                "INSERT INTO " + TABLE + " SELECT g, 0, NULL FROM generate_series(1, " + ROWS + ") g");
        Fence fence = Fence.of(ResourceName.of("bench"), FencingToken.of(1));
        FencedDataSource fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence(TABLE)
                .fenceSource(() -> Optional.of(fence)).build());

        updates(raw, 1_000);
        updates(fenced, 1_000);
        double rawBest = 0;
        double guardedBest = 0;
        for (int round = 0; round < 3; round++) {
            rawBest = Math.max(rawBest, updates(raw, ROUND_MILLIS));
            guardedBest = Math.max(guardedBest, updates(fenced, ROUND_MILLIS));
        }
        double plain = transactions(fenced, false, 3_000);
        double claimed = transactions(fenced, true, 3_000);
        plain = Math.min(plain, transactions(fenced, false, 3_000));
        claimed = Math.min(claimed, transactions(fenced, true, 3_000));

        System.out.printf("%nfenceguard JDBC benchmark (PostgreSQL, %d threads, pool of 10, %d rows)%n", THREADS, ROWS);
        System.out.printf("raw UPDATE throughput:      %,10.0f statements/s%n", rawBest);
        System.out.printf("guarded UPDATE throughput:  %,10.0f statements/s%n", guardedBest);
        System.out.printf("guarded / raw:              %10.3f (goal >= 0.95)%n", guardedBest / rawBest);
        System.out.printf("transaction, 1 UPDATE:      %10.1f us%n", plain);
        System.out.printf("same plus gate claim:       %10.1f us (claim costs %.1f us per transaction)%n",
                claimed, claimed - plain);
        System.out.printf("plan cache hit p50:         %10.3f us (goal <= 1 us)%n", cacheHitMicros());
        System.exit(0);
    }

    /** Statements per second from {@link #THREADS} threads for {@code millis}. */
    private static double updates(DataSource dataSource, long millis) throws Exception {
        LongAdder done = new LongAdder();
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        Future<?>[] workers = new Future<?>[THREADS];
        long started = System.nanoTime();
        for (int t = 0; t < THREADS; t++) {
            workers[t] = pool.submit(() -> {
                while (System.nanoTime() < end) {
                    try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(UPDATE)) {
                        for (int i = 0; i < 100; i++) {
                            ps.setInt(1, 1);
                            ps.setInt(2, ThreadLocalRandom.current().nextInt(1, ROWS + 1));
                            ps.executeUpdate();
                            done.increment();
                        }
                    }
                }
                return null;
            });
        }
        for (Future<?> worker : workers) {
            worker.get();
        }
        pool.shutdown();
        return done.sum() / ((System.nanoTime() - started) / 1e9);
    }

    /** Mean microseconds of a one-UPDATE transaction, with or without a gate claim, on one thread. */
    private static double transactions(FencedDataSource dataSource, boolean claim, int count) throws Exception {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(UPDATE)) {
            c.setAutoCommit(false);
            long started = System.nanoTime();
            for (int i = 0; i < count; i++) {
                if (claim) {
                    Gate.claim(c);
                }
                ps.setInt(1, 1);
                ps.setInt(2, ThreadLocalRandom.current().nextInt(1, ROWS + 1));
                ps.executeUpdate();
                c.commit();
            }
            return (System.nanoTime() - started) / 1e3 / count;
        }
    }

    private static double cacheHitMicros() {
        JdbcGuard guard = new JdbcGuard(FencingConfig.builder().fence(TABLE).dialect(SqlDialect.POSTGRESQL).build());
        String[] statements = {UPDATE, "SELECT v FROM " + TABLE + " WHERE id = ?", "DELETE FROM " + TABLE + " WHERE id = ?"};
        for (String sql : statements) {
            guard.preparedSql(sql);
        }
        long sink = 0;
        for (int i = 0; i < 200_000; i++) {
            sink += guard.preparedSql(statements[i % 3]).length();
        }
        long[] samples = new long[100_000];
        for (int i = 0; i < samples.length; i++) {
            long t0 = System.nanoTime();
            sink += guard.preparedSql(statements[i % 3]).length();
            samples[i] = System.nanoTime() - t0;
        }
        Arrays.sort(samples);
        if (sink == 42) {
            System.out.println();
        }
        return samples[samples.length / 2] / 1e3;
    }
}
