package io.fenceguard.jdbc.bench;

import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.HighWaterMarks;
import io.fenceguard.jdbc.ClaimMode;
import io.fenceguard.jdbc.SqlDialect;
import io.fenceguard.jdbc.internal.sql.HighWaterClaims;
import io.fenceguard.jdbc.sql.SqlFencePlan;
import io.fenceguard.jdbc.sql.SqlFencePlanner;
import io.fenceguard.test.support.bench.BenchTable;
import io.fenceguard.test.support.bench.ProcessCpu;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * On PostgreSQL: guarded vs raw UPDATE throughput on the same table and pool, and the cost of a high-water
 * claim per transaction. The rewrite-plan cache hit is a JMH micro-benchmark: {@link PlanCacheBenchmark}.
 *
 * <pre>
 * ./mvnw -B -pl guard-jdbc -Pbench -DskipTests verify
 *   env GUARD_TEST_POSTGRES_URL, _USER, _PASSWORD (default jdbc:postgresql://127.0.0.1:5432/test, postgres)
 *   -Dbench.jdbc.seconds=3 -Dbench.jdbc.threads=4 -Dbench.jdbc.transactions=3000 -Dbench.jdbc.warmup=10 (seconds)
 *   -Dbench.jdbc.claim-designs=true (also other ways the claim could lock its resource, against the guard's)
 * </pre>
 */
public final class JdbcFencingBenchmark {

    private static final String TABLE = "fg_bench";
    private static final String UPDATE = "UPDATE " + TABLE + " SET v = v + ? WHERE id = ?";
    private static final int ROWS = 10_000;
    private static final int THREADS = Integer.getInteger("bench.jdbc.threads", 4);
    private static final long ROUND_MILLIS = (long) (1000 * Double.parseDouble(System.getProperty("bench.jdbc.seconds", "3")));
    private static final int TRANSACTIONS = Integer.getInteger("bench.jdbc.transactions", 3_000);
    private static final int ROUNDS = Integer.getInteger("bench.jdbc.rounds", 6);
    private static final long WARMUP_MILLIS = (long) (1000 * Double.parseDouble(System.getProperty("bench.jdbc.warmup", "10")));
    private static final int CLAIM_ROUNDS = Integer.getInteger("bench.jdbc.claim-rounds", 9);

    public static void main(String[] args) throws Exception {
        HikariDataSource raw = BenchDatabase.pool(10);
        System.out.println("database: " + BenchDatabase.describe(raw));
        execute(raw, "DROP TABLE IF EXISTS " + TABLE,
                "CREATE TABLE " + TABLE + " (id INT PRIMARY KEY, v BIGINT NOT NULL, current_token BIGINT)",
                "INSERT INTO " + TABLE + " SELECT g, 0, NULL FROM generate_series(1, " + ROWS + ") g");
        // Every statement runs under one presented lease, bound on each worker thread as well.
        LeaseContext.bind(Lease.presented(Fence.of("bench", "1"), "bench"));
        FencingConfig config = FencingConfig.builder().fence(TABLE).build();
        FencedDataSource fenced = FencedDataSource.wrap(raw, config);
        // The anchor for the guard's own cost: the fence's SQL, as the guard rewrites it, written by hand on the raw pool.
        SqlFencePlan fencePlan = SqlFencePlanner.of(config, SqlDialect.POSTGRESQL).plan(UPDATE);

        // Warm-up until the compiler is done with both paths: its threads would otherwise take CPU from (and be
        // counted in) whichever rounds run while it works, the guarded path's more than the raw one's.
        for (int i = 0; i < 2; i++) {
            updates(raw, WARMUP_MILLIS / 3);
            updates(fenced, WARMUP_MILLIS / 3);
            fencedByHand(raw, fencePlan, WARMUP_MILLIS / 3);
        }
        // CPU per statement counts the measured rounds only: the warm-up's holds one-time work (the first parse
        // loads the SQL parser's classes), all of it on the guarded side.
        CPU.clear();
        // Rounds of the three in rotating order; the medians of each round's own ratios damp the drift of a shared machine.
        double[] rawRates = new double[ROUNDS];
        double[] guardedRates = new double[ROUNDS];
        double[] byHandRates = new double[ROUNDS];
        for (int round = 0; round < ROUNDS; round++) {
            for (int k = 0; k < 3; k++) {
                switch ((round + k) % 3) {
                    case 0 -> rawRates[round] = updates(raw, ROUND_MILLIS);
                    case 1 -> guardedRates[round] = updates(fenced, ROUND_MILLIS);
                    default -> byHandRates[round] = fencedByHand(raw, fencePlan, ROUND_MILLIS);
                }
            }
        }
        double[] ratios = ratios(guardedRates, rawRates);
        double[] byHandRatios = ratios(byHandRates, rawRates);
        double[] guardOwnRatios = ratios(guardedRates, byHandRates);
        double rawMedian = median(rawRates);
        double guardedMedian = median(guardedRates);
        double byHandMedian = median(byHandRates);
        // The same three in blocks of 100 taking turns on every thread: a time ratio per window, drift cancelled.
        double[][] micros = interleaved(raw, fenced, fencePlan, ROUNDS * 2);
        double[] interleavedRatios = ratios(micros[0], micros[1]);
        double[] interleavedByHand = ratios(micros[0], micros[2]);
        double[] interleavedOwn = ratios(micros[2], micros[1]);
        // The floor: a bare SELECT 1 round trip, same threads and pool, the most statements PostgreSQL answers here.
        double floor = Math.max(selects(raw, ROUND_MILLIS), selects(raw, ROUND_MILLIS));
        // One-UPDATE transactions on one thread: without a claim, with HighWaterMarks.claim as a statement of its own
        // (EXPLICIT), and with the claim sent together with the first statement (FIRST_STATEMENT); medians of the
        // rounds.
        FencedDataSource claiming = FencedDataSource.wrap(raw, FencingConfig.builder().fence(TABLE)
                .claimMode(ClaimMode.FIRST_STATEMENT).build());
        double[][] perTransaction = new double[3][CLAIM_ROUNDS];
        transactions(null, fenced, true, TRANSACTIONS / 4);
        transactions(null, claiming, false, TRANSACTIONS / 4);
        // Each round: the three kinds take turns in blocks of 50 transactions, so they meet the machine alike.
        int blocks = Math.max(1, TRANSACTIONS / 50);
        for (int round = 0; round < CLAIM_ROUNDS; round++) {
            for (int block = 0; block < blocks; block++) {
                for (int k = 0; k < 3; k++) {
                    int which = (block + k) % 3;
                    perTransaction[which][round] += transactions(TRANSACTION_KINDS[which], which == 2 ? claiming : fenced,
                            which == 1, 50) / blocks;
                }
            }
        }
        double plain = median(perTransaction[0]);
        double claimed = median(perTransaction[1]);
        double together = median(perTransaction[2]);
        // Each round measures all three back to back: the median of the rounds' own ratios damps the drift of a
        // shared machine better than a ratio of medians.
        double[] claimedRatios = ratios(perTransaction[1], perTransaction[0]);
        double[] togetherRatios = ratios(perTransaction[2], perTransaction[0]);
        if (Boolean.getBoolean("bench.jdbc.claim-designs")) {
            claimDesigns(raw);
        }
        execute(raw, "DROP TABLE IF EXISTS " + TABLE);
        raw.close();

        System.out.printf("%nfenceguard JDBC benchmark (PostgreSQL, %d threads, pool of 10, %d rows)%n", THREADS, ROWS);
        System.out.printf("raw UPDATE throughput:      %,10.0f statements/s (median of %d rounds)%n", rawMedian, ROUNDS);
        System.out.printf("guarded UPDATE throughput:  %,10.0f statements/s (median of %d rounds)%n", guardedMedian, ROUNDS);
        System.out.printf("guarded / raw:              %10.3f (median of the paired rounds' ratios; goal >= 0.99)%n",
                median(ratios));
        System.out.printf("paired ratios:              %s%n", rounded(ratios));
        System.out.printf("fence SQL by hand:          %,10.0f statements/s (median of %d rounds; / raw %.3f, rounds %s)%n",
                byHandMedian, ROUNDS, median(byHandRatios), rounded(byHandRatios));
        System.out.printf("guarded / fence SQL by hand:%10.3f (the guard's own cost; rounds %s)%n", median(guardOwnRatios),
                rounded(guardOwnRatios));
        System.out.printf("interleaved, per UPDATE:    %10.1f us raw, %.1f us guarded, %.1f us fence SQL by hand (medians of"
                + " %d windows)%n", median(micros[0]), median(micros[1]), median(micros[2]), micros[0].length);
        System.out.printf("interleaved guarded / raw:  %10.3f (raw time / guarded time, median of the windows' ratios; goal"
                + " >= 0.99; windows %s)%n", median(interleavedRatios), rounded(interleavedRatios));
        System.out.printf("interleaved by hand / raw:  %10.3f; guarded / by hand %.3f (the guard's own cost; windows %s)%n",
                median(interleavedByHand), median(interleavedOwn), rounded(interleavedOwn));
        double[] rawCpu = CPU.perStatement("raw " + UPDATE);
        double[] guardedCpu = CPU.perStatement("guarded " + UPDATE);
        double[] byHandCpu = CPU.perStatement("by hand " + UPDATE);
        System.out.printf("CPU per UPDATE, raw:        %10.1f us client, %.1f us PostgreSQL%n", rawCpu[0], rawCpu[1]);
        System.out.printf("CPU per UPDATE, by hand:    %10.1f us client, %.1f us PostgreSQL (+%.1f / +%.1f us)%n",
                byHandCpu[0], byHandCpu[1], byHandCpu[0] - rawCpu[0], byHandCpu[1] - rawCpu[1]);
        System.out.printf("CPU per UPDATE, guarded:    %10.1f us client, %.1f us PostgreSQL (+%.1f / +%.1f us)%n",
                guardedCpu[0], guardedCpu[1], guardedCpu[0] - rawCpu[0], guardedCpu[1] - rawCpu[1]);
        System.out.printf("transaction, 1 UPDATE:      %10.1f us%n", plain);
        System.out.printf("same plus high-water claim:       %10.1f us (claim costs %.1f us per transaction; paired ratio %.3f)%n",
                claimed, claimed - plain, median(claimedRatios));
        System.out.printf("claim with the statement:   %10.1f us (claim costs %.1f us per transaction; paired ratio %.3f, "
                + "goal <= 1.05; rounds %s)%n", together, together - plain, median(togetherRatios),
                rounded(togetherRatios));
        for (String kind : TRANSACTION_KINDS) {
            double[] cpu = CPU.perStatement(kind);
            System.out.printf("CPU per %-28s %5.1f us client, %.1f us PostgreSQL%n", kind + ":", cpu[0], cpu[1]);
        }
        System.out.printf("floor, SELECT 1:            %,10.0f statements/s (raw UPDATE %.3f of it, guarded %.3f)%n", floor,
                rawMedian / floor, guardedMedian / floor);
        System.out.println("plan cache hit:             see the JMH PlanCacheBenchmark that follows");
        String threads = THREADS + " threads";
        BenchTable.row("jdbc", "PostgreSQL SELECT 1 (floor), " + threads, floor, "statements/s", "–", Double.NaN, 1.0);
        BenchTable.row("jdbc", "raw UPDATE, " + threads, rawMedian, "statements/s", "–", Double.NaN, rawMedian / floor);
        BenchTable.row("jdbc", "guarded UPDATE, " + threads, guardedMedian, "statements/s", "raw UPDATE", median(ratios),
                guardedMedian / floor);
        // taking turns, the statements/s of a kind are those its per-statement time allows the threads
        double guardedTakingTurns = THREADS * 1e6 / median(micros[1]);
        BenchTable.row("jdbc", "guarded UPDATE taking turns with raw, " + threads, guardedTakingTurns, "statements/s",
                "raw UPDATE taking turns", median(interleavedRatios), Double.NaN);
        BenchTable.row("jdbc", "one-UPDATE transaction without a claim, 1 thread", plain, "µs", "–", Double.NaN,
                Double.NaN);
        BenchTable.row("jdbc", "one-UPDATE transaction, HighWaterMarks.claim a statement of its own, 1 thread", claimed, "µs",
                "same without the claim", median(claimedRatios), Double.NaN);
        BenchTable.row("jdbc", "one-UPDATE transaction, claim sent with the UPDATE (FIRST_STATEMENT), 1 thread", together,
                "µs", "same without the claim", median(togetherRatios), Double.NaN);
        BenchTable.row("jdbc", "fence SQL written by hand on raw JDBC, " + threads, byHandMedian, "statements/s",
                "raw UPDATE", median(byHandRatios), byHandMedian / floor);
        BenchTable.row("jdbc", "guarded UPDATE against the fence SQL by hand, " + threads, guardedMedian, "statements/s",
                "fence SQL by hand", median(guardOwnRatios), guardedMedian / floor);
        BenchTable.row("jdbc", "guarded UPDATE taking turns with the fence SQL by hand, " + threads, guardedTakingTurns,
                "statements/s", "fence SQL by hand taking turns", median(interleavedOwn), Double.NaN);
        BenchTable.print();
        System.exit(0);
    }

    /** CPU time per statement (or transaction) of the rounds so far, client (this JVM) and server (PostgreSQL), by kind. */
    private static final class CpuPerStatement {
        private final java.util.Map<String, long[]> totals = new java.util.concurrent.ConcurrentHashMap<>();

        void record(String kind, long clientNanos, long serverNanos, long statements) {
            long[] t = totals.computeIfAbsent(kind, k -> new long[3]);
            synchronized (t) {
                t[0] += clientNanos;
                t[1] = t[1] < 0 || serverNanos < 0 ? -1 : t[1] + serverNanos;
                t[2] += statements;
            }
        }

        void clear() {
            totals.clear();
        }

        /** {client µs, server µs (NaN when unknown)} per statement. */
        double[] perStatement(String kind) {
            long[] t = totals.get(kind);
            if (t == null || t[2] == 0) {
                return new double[] {Double.NaN, Double.NaN};
            }
            return new double[] {t[0] / 1e3 / t[2], t[1] < 0 ? Double.NaN : t[1] / 1e3 / t[2]};
        }
    }

    private static final CpuPerStatement CPU = new CpuPerStatement();
    private static final String[] TRANSACTION_KINDS = {"transaction", "transaction + claim", "transaction + claim with it"};

    /** Each round's {@code measured / anchor}. */
    private static double[] ratios(double[] measured, double[] anchor) {
        double[] ratios = new double[measured.length];
        for (int round = 0; round < measured.length; round++) {
            ratios[round] = measured[round] / anchor[round];
        }
        return ratios;
    }

    private static String rounded(double[] ratios) {
        return java.util.Arrays.toString(java.util.Arrays.stream(ratios).map(r -> Math.round(r * 1000) / 1000.0).toArray());
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** UPDATE statements per second from {@link #THREADS} threads for {@code millis}, each under the lease. */
    private static double updates(DataSource dataSource, long millis) throws Exception {
        return rate(dataSource, millis, UPDATE, JdbcFencingBenchmark::update);
    }

    /** The fence's rewritten UPDATE on the raw pool, each parameter and the token bound where the plan puts them. */
    private static double fencedByHand(DataSource raw, SqlFencePlan plan, long millis) throws Exception {
        return rate("by hand ", raw, millis, plan.rewrittenSql(), UPDATE, byHand(plan));
    }

    /** One UPDATE of a random row, as the application writes it. */
    private static void update(PreparedStatement ps) throws Exception {
        ps.setInt(1, 1);
        ps.setInt(2, ThreadLocalRandom.current().nextInt(1, ROWS + 1));
        ps.executeUpdate();
    }

    /** One UPDATE of a random row with the fence's SQL prepared from {@code plan}, the token bound by hand. */
    private static StatementRun byHand(SqlFencePlan plan) {
        int[] amount = plan.positionsOf(1);
        int[] id = plan.positionsOf(2);
        int[] token = plan.tokenPositions();
        return ps -> {
            for (int p : amount) {
                ps.setInt(p, 1);
            }
            int row = ThreadLocalRandom.current().nextInt(1, ROWS + 1);
            for (int p : id) {
                ps.setInt(p, row);
            }
            for (int p : token) {
                ps.setLong(p, 1L);
            }
            ps.executeUpdate();
        };
    }

    /**
     * Mean microseconds per UPDATE of each kind ({0 raw, 1 guarded, 2 fence SQL by hand}) in each of {@code windows}
     * windows of {@link #ROUND_MILLIS}: every thread runs blocks of 100 statements of the three kinds in turn, so the
     * three meet the same machine at the same moments and its drift cancels out of their ratios.
     */
    private static double[][] interleaved(DataSource raw, DataSource fenced, SqlFencePlan plan, int windows)
            throws Exception {
        long[][] nanos = new long[3][windows];
        long[][] counts = new long[3][windows];
        long windowNanos = TimeUnit.MILLISECONDS.toNanos(ROUND_MILLIS);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        Future<?>[] workers = new Future<?>[THREADS];
        long start = System.nanoTime();
        for (int t = 0; t < THREADS; t++) {
            int first = t;
            workers[t] = pool.submit(LeaseContext.wrap(() -> {
                StatementRun handRun = byHand(plan);
                try (Connection rawConnection = raw.getConnection(); Connection fencedConnection = fenced.getConnection();
                     PreparedStatement rawUpdate = rawConnection.prepareStatement(UPDATE);
                     PreparedStatement guardedUpdate = fencedConnection.prepareStatement(UPDATE);
                     PreparedStatement handUpdate = rawConnection.prepareStatement(plan.rewrittenSql())) {
                    for (int block = first; ; block++) {
                        long began = System.nanoTime();
                        int window = (int) ((began - start) / windowNanos);
                        if (window >= windows) {
                            return null;
                        }
                        int kind = block % 3;
                        for (int i = 0; i < 100; i++) {
                            switch (kind) {
                                case 0 -> update(rawUpdate);
                                case 1 -> update(guardedUpdate);
                                default -> handRun.run(handUpdate);
                            }
                        }
                        long took = System.nanoTime() - began;
                        synchronized (nanos) {
                            nanos[kind][window] += took;
                            counts[kind][window] += 100;
                        }
                    }
                }
            }));
        }
        for (Future<?> worker : workers) {
            worker.get();
        }
        pool.shutdown();
        double[][] micros = new double[3][windows];
        for (int kind = 0; kind < 3; kind++) {
            for (int window = 0; window < windows; window++) {
                micros[kind][window] = nanos[kind][window] / 1e3 / Math.max(1, counts[kind][window]);
            }
        }
        return micros;
    }

    /** Bare {@code SELECT 1} statements per second from {@link #THREADS} threads for {@code millis}. */
    private static double selects(DataSource dataSource, long millis) throws Exception {
        return rate(dataSource, millis, "SELECT 1", ps -> {
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                rs.next();
            }
        });
    }

    @FunctionalInterface
    private interface StatementRun {
        void run(PreparedStatement statement) throws Exception;
    }

    /** Runs of {@code sql} per second from {@link #THREADS} threads for {@code millis}, 100 per connection. */
    private static double rate(DataSource dataSource, long millis, String sql, StatementRun once) throws Exception {
        return rate(dataSource instanceof FencedDataSource ? "guarded " : "raw ", dataSource, millis, sql, sql, once);
    }

    /** As above, preparing {@code sql}; CPU recorded under {@code label + kind}. */
    private static double rate(String label, DataSource dataSource, long millis, String sql, String kind, StatementRun once)
            throws Exception {
        LongAdder done = new LongAdder();
        long clientCpuBefore = ProcessCpu.nanos();
        long serverCpuBefore = BenchDatabase.localServerCpuNanos();
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        Future<?>[] workers = new Future<?>[THREADS];
        long started = System.nanoTime();
        for (int t = 0; t < THREADS; t++) {
            workers[t] = pool.submit(LeaseContext.wrap(() -> {
                while (System.nanoTime() < end) {
                    try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
                        for (int i = 0; i < 100; i++) {
                            once.run(ps);
                            done.increment();
                        }
                    }
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get();
        }
        pool.shutdown();
        double rate = done.sum() / ((System.nanoTime() - started) / 1e9);
        long serverCpuAfter = BenchDatabase.localServerCpuNanos();
        CPU.record(label + kind, ProcessCpu.nanos() - clientCpuBefore,
                serverCpuBefore < 0 || serverCpuAfter < 0 ? -1 : serverCpuAfter - serverCpuBefore, done.sum());
        return rate;
    }

    /** Mean microseconds of a one-UPDATE transaction, with or without a high-water claim, on one thread. */
    private static double transactions(String label, FencedDataSource dataSource, boolean claim, int count)
            throws Exception {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(UPDATE)) {
            return timedTransactions(label, c, count, () -> {
                if (claim) {
                    HighWaterMarks.claim(c);
                }
                ps.setInt(1, 1);
                ps.setInt(2, ThreadLocalRandom.current().nextInt(1, ROWS + 1));
                ps.executeUpdate();
            });
        }
    }

    @FunctionalInterface
    private interface TransactionBody {
        void run() throws Exception;
    }

    /**
     * Mean microseconds of {@code count} transactions of {@code body} on {@code c}, each committed; the client's and
     * PostgreSQL's CPU recorded under {@code label} (null: not recorded).
     */
    private static double timedTransactions(String label, Connection c, int count, TransactionBody body) throws Exception {
        c.setAutoCommit(false);
        long cpuBefore = ProcessCpu.nanos();
        long serverCpuBefore = BenchDatabase.localServerCpuNanos();
        long started = System.nanoTime();
        for (int i = 0; i < count; i++) {
            body.run();
            c.commit();
        }
        double micros = (System.nanoTime() - started) / 1e3 / count;
        long serverCpuAfter = BenchDatabase.localServerCpuNanos();
        if (label != null) {
            CPU.record(label, ProcessCpu.nanos() - cpuBefore, serverCpuBefore < 0 || serverCpuAfter < 0 ? -1
                    : serverCpuAfter - serverCpuBefore, count);
        }
        return micros;
    }

    /**
     * Other ways the claim could lock the resource, each sent with the UPDATE in one multi-statement execution as
     * {@code FIRST_STATEMENT} sends the guard's: the guard's upsert, {@code SELECT … FOR UPDATE} of the high-water row, and
     * {@code pg_advisory_xact_lock} with a read of the row (which would need more than this: under REPEATABLE READ
     * the read may use a snapshot older than the lock). A claim by the token the row holds, as a holder's every
     * transaction after its first makes. Per transaction, one thread: time and PostgreSQL CPU, against no claim.
     */
    private static void claimDesigns(HikariDataSource raw) throws Exception {
        String resource = "bench:claim-design";
        execute(raw, "DELETE FROM fenceguard_gate WHERE resource = '" + resource + "'",
                "INSERT INTO fenceguard_gate (resource, token) VALUES ('" + resource + "', 1)");
        String[] names = {"no claim", "upsert (the guard's)", "SELECT FOR UPDATE", "advisory lock + read"};
        String[] claims = {null,
                HighWaterClaims.sql(SqlDialect.POSTGRESQL, "fenceguard_gate", "fenceguard_stale"),
                "SELECT token FROM fenceguard_gate WHERE resource = ? FOR UPDATE",
                "SELECT pg_advisory_xact_lock(hashtextextended(?, 0)), (SELECT token FROM fenceguard_gate WHERE resource = ?)"};
        // What each claim binds in front of the UPDATE's two parameters; the upsert claims with token 1, the row's.
        List<List<Object>> claimParameters = List.of(List.of(), List.of(resource, 1L), List.of(resource),
                List.of(resource, resource));
        double[][] micros = new double[names.length][CLAIM_ROUNDS];
        for (int round = -1; round < CLAIM_ROUNDS; round++) {  // round -1: warm-up
            for (int k = 0; k < names.length; k++) {
                int which = (round + 1 + k) % names.length;
                String sql = claims[which] == null ? UPDATE : claims[which] + ";\n" + UPDATE;
                List<Object> parameters = claimParameters.get(which);
                try (Connection c = raw.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
                    double perTransaction = timedTransactions(round < 0 ? null : "design: " + names[which], c,
                            round < 0 ? TRANSACTIONS / 4 : TRANSACTIONS, () -> {
                                for (int p = 0; p < parameters.size(); p++) {
                                    ps.setObject(p + 1, parameters.get(p));
                                }
                                ps.setInt(parameters.size() + 1, 1);
                                ps.setInt(parameters.size() + 2, ThreadLocalRandom.current().nextInt(1, ROWS + 1));
                                ps.execute();
                            });
                    if (round >= 0) {
                        micros[which][round] = perTransaction;
                    }
                }
            }
        }
        System.out.printf("%nclaim designs, one-UPDATE transaction with the claim sent in front of it, 1 thread, %d rounds:%n",
                CLAIM_ROUNDS);
        for (int which = 0; which < names.length; which++) {
            double[] ratios = ratios(micros[which], micros[0]);
            double[] cpu = CPU.perStatement("design: " + names[which]);
            System.out.printf("  %-24s %7.1f us, vs no claim %.3f (median of the rounds' ratios); CPU %.1f us client, "
                    + "%.1f us PostgreSQL%n", names[which], median(micros[which]), median(ratios), cpu[0], cpu[1]);
            BenchTable.row("jdbc", "claim design: " + names[which] + ", one-UPDATE transaction, 1 thread",
                    median(micros[which]), "µs", "no claim", median(ratios), Double.NaN);
        }
        execute(raw, "DELETE FROM fenceguard_gate WHERE resource = '" + resource + "'");
    }

    private static void execute(DataSource dataSource, String... statements) throws Exception {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }
}
