package io.fenceguard.jdbc.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.ClaimMode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * What high-water fencing costs a write against row fencing and an unfenced write, in the same run on the same PostgreSQL
 * and pool: one-UPDATE transactions on one thread, each kind on a table of its own (high-water fencing and the unfenced
 * write on tables without a token column, row fencing on one with it). The three take turns in blocks of 50
 * transactions in every round; the figures are medians of the rounds, the ratios medians of each round's own.
 *
 * <pre>
 * java -cp &lt;guard-jdbc's test class path&gt; io.fenceguard.jdbc.bench.HighWaterClaimCostBenchmark
 *   env GUARD_TEST_POSTGRES_URL, _USER, _PASSWORD (default jdbc:postgresql://127.0.0.1:5432/test, postgres)
 *   -Dbench.highwater.rounds=5 -Dbench.highwater.transactions=500 (per kind and round)
 * </pre>
 */
public final class HighWaterClaimCostBenchmark {

    private static final int ROWS = 1_000;
    private static final int ROUNDS = Integer.getInteger("bench.highwater.rounds", 5);
    private static final int TRANSACTIONS = Integer.getInteger("bench.highwater.transactions", 500);
    private static final String[] KINDS = {"unfenced", "row fencing", "high-water fencing"};

    public static void main(String[] args) throws Exception {
        String suffix = Long.toString(System.nanoTime(), 36);
        String plain = "fg_hw_bench_plain_" + suffix;
        String rowFenced = "fg_hw_bench_row_" + suffix;
        String claiming = "fg_hw_bench_claim_" + suffix;
        HikariDataSource raw = BenchDatabase.pool(3);
        try {
            System.out.println("database: " + BenchDatabase.describe(raw));
            for (String table : new String[] {plain, claiming}) {
                execute(raw, "CREATE TABLE " + table + " (id INT PRIMARY KEY, v BIGINT NOT NULL)",
                        "INSERT INTO " + table + " SELECT g, 0 FROM generate_series(1, " + ROWS + ") g");
            }
            execute(raw, "CREATE TABLE " + rowFenced + " (id INT PRIMARY KEY, v BIGINT NOT NULL, current_token BIGINT)",
                    "INSERT INTO " + rowFenced + " SELECT g, 0, NULL FROM generate_series(1, " + ROWS + ") g");
            // A resource of this run's own, so its high-water row is not shared with anything else on the server.
            LeaseContext.bind(Lease.presented(Fence.of("bench:high-water:" + suffix, "1"), "bench"));
            DataSource[] sources = {raw, FencedDataSource.wrap(raw, FencingConfig.builder().fence(rowFenced).build()),
                    FencedDataSource.wrap(raw, FencingConfig.builder().claimMode(ClaimMode.FIRST_STATEMENT).build())};
            String[] tables = {plain, rowFenced, claiming};
            double[][] micros = new double[KINDS.length][ROUNDS];
            for (int round = -1; round < ROUNDS; round++) { // round -1 warms up
                for (int block = 0; block < TRANSACTIONS / 50; block++) {
                    for (int k = 0; k < KINDS.length; k++) {
                        int which = (block + k) % KINDS.length;
                        double took = transactions(sources[which], tables[which], 50);
                        if (round >= 0) {
                            micros[which][round] += took / (TRANSACTIONS / 50);
                        }
                    }
                }
            }
            System.out.printf("%nfenceguard high-water claim cost (PostgreSQL, one UPDATE per transaction, 1 thread, %d rounds of %d"
                    + " transactions per kind)%n", ROUNDS, TRANSACTIONS);
            for (int k = 0; k < KINDS.length; k++) {
                System.out.printf("%-13s %8.1f us per transaction (median; rounds %s)%n", KINDS[k] + ":",
                        median(micros[k]), rounded(micros[k]));
            }
            System.out.printf("row fencing / unfenced:  %.3f (median of the rounds' ratios)%n",
                    median(ratios(micros[1], micros[0])));
            System.out.printf("high-water fencing / unfenced: %.3f; high-water fencing / row fencing: %.3f%n",
                    median(ratios(micros[2], micros[0])), median(ratios(micros[2], micros[1])));
            System.out.printf("high-water fencing's extra cost per write: %.1f us over unfenced, %.1f us over row fencing%n",
                    median(micros[2]) - median(micros[0]), median(micros[2]) - median(micros[1]));
        } finally {
            execute(raw, "DROP TABLE IF EXISTS " + plain, "DROP TABLE IF EXISTS " + rowFenced,
                    "DROP TABLE IF EXISTS " + claiming,
                    "DELETE FROM fenceguard_gate WHERE resource = 'bench:gate:" + suffix + "'");
            raw.close();
        }
        System.exit(0);
    }

    /** Mean microseconds of {@code count} committed transactions of one UPDATE of a random row of {@code table}. */
    private static double transactions(DataSource dataSource, String table, int count) throws Exception {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET v = v + ? WHERE id = ?")) {
            c.setAutoCommit(false);
            long started = System.nanoTime();
            for (int i = 0; i < count; i++) {
                ps.setInt(1, 1);
                ps.setInt(2, ThreadLocalRandom.current().nextInt(1, ROWS + 1));
                ps.executeUpdate();
                c.commit();
            }
            return (System.nanoTime() - started) / 1e3 / count;
        }
    }

    private static double[] ratios(double[] measured, double[] anchor) {
        double[] ratios = new double[measured.length];
        for (int i = 0; i < measured.length; i++) {
            ratios[i] = measured[i] / anchor[i];
        }
        return ratios;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String rounded(double[] values) {
        return Arrays.toString(Arrays.stream(values).map(v -> Math.round(v * 10) / 10.0).toArray());
    }

    private static void execute(DataSource dataSource, String... statements) throws Exception {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }
}
