package io.fenceguard.http.filter.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.admission.Admission;
import io.fenceguard.admission.FenceHeader;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.IdempotencyStore;
import io.fenceguard.admission.NonceStore;
import io.fenceguard.admission.RequestSignatures;
import io.fenceguard.admission.SignedAdmissionStore;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.http.filter.support.Instances;
import io.fenceguard.http.filter.support.TestApp;
import io.fenceguard.http.filter.support.TestWiring;
import io.fenceguard.jdbc.admission.JdbcHighWaterStore;
import io.fenceguard.test.support.bench.BenchDeadline;
import io.fenceguard.test.support.bench.BenchTable;
import io.fenceguard.test.support.bench.ProcessCpu;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * Requests/s and median latency of PUT /accounts/bench through the fencing filter against the same
 * endpoint with the filter switched off: in memory unsigned, compact signed and request-signed (a new
 * RFC 9421 signature and nonce per request, signed on the client thread), and on the JDBC store compact
 * and request-signed (also with an idempotency key per request: its claim in the admission's statement, and
 * apart), and PUT /writes/bench, whose handler inserts a row in the same PostgreSQL, without the
 * filter (that row's anchor), with the JDBC store, and with the JDBC store's admission in the handler's
 * transaction (one commit), and request-signed with the JDBC store; the same token each time, so every request consults the store (request-signed:
 * the nonce cache too). Stores this module cannot depend on add their rows through an {@link Extension}
 * (fenceguard-redis's {@code RedisHttpGuardBenchmark}: the Redis store, in the same run). Rows without the filter
 * whose handler makes one trivial call to the store's server (after its row, for the writing handler) show what any
 * filter that calls the store once per request could reach at most. All are warmed up first, then measured in rounds in a
 * rotating order (so neither JIT warm-up nor a drift in machine load favours one); figures are over all
 * rounds. Beside each row, the servers' CPU per request (the process's CPU less the load driver's threads'). Then an
 * open loop: each endpoint at half its anchor's closed-loop rate (a shared store's row and its one-call row at half the
 * one-call row's), p50 and p99 from each request's due time, and what each filter adds over its one-call row. The
 * header's parse and verification alone are the JMH micro-benchmark {@link FenceHeaderBenchmark}.
 *
 * <p>Transient client errors are retried and reported ({@link LoadDriver}); every request has a
 * timeout, the whole run a deadline, and the JVM always exits: 0 with figures, 1 on a failure, 3 when
 * the deadline passed.
 *
 * <pre>
 * ./mvnw -B -pl guard-http-filter -am -Dbench=http -DskipTests verify   (runs RedisHttpGuardBenchmark: these rows and the Redis store's)
 *   env GUARD_TEST_POSTGRES_URL, _USER, _PASSWORD (default jdbc:postgresql://127.0.0.1:5432/test, postgres)
 *   -Dbench.http.seconds=8 (per endpoint, over all rounds) -Dbench.http.rounds=4 -Dbench.http.warmup=3
 *   -Dbench.http.threads=8 -Dbench.http.request-timeout=5 -Dbench.http.attempts=3
 *   -Dbench.http.deadline=0 (seconds; 0: 120 + 3 × the load, (warm-up + measurement) per row)
 *   -Dbench.http.rows=REGEX (measure only the rows whose name matches, with their anchors; e.g. to profile one)
 *   -Dbench.http.latency-seconds=3 (open loop per endpoint at half its anchor's, or one-call row's, closed-loop rate; 0: none)
 * </pre>
 */
public final class HttpGuardBenchmark {

    private static final int THREADS = Integer.getInteger("bench.http.threads", 8);
    private static final Duration WARMUP = seconds("bench.http.warmup", "3");
    private static final Duration MEASURE = seconds("bench.http.seconds", "8");
    private static final int ROUNDS = Math.max(1, Integer.getInteger("bench.http.rounds", 4));
    private static final Duration REQUEST_TIMEOUT = seconds("bench.http.request-timeout", "5");
    private static final int ATTEMPTS = Math.max(1, Integer.getInteger("bench.http.attempts", 3));
    /** Open-loop seconds per endpoint (0: no open-loop latency rows). */
    private static final Duration LATENCY = seconds("bench.http.latency-seconds", "3");
    /** A run whose requests fail every attempt more often than this has no figures worth printing. */
    private static final double MAX_FAILED_SHARE = 0.01;

    /** When the JVM is stopped, whatever the benchmark is doing; moved out once the rows are known. */
    private static final BenchDeadline DEADLINE = BenchDeadline.after(deadline(12));

    /**
     * {@code bench.http.deadline} seconds; unset or 0: two minutes for start-up and shutdown plus 3 × the load of
     * {@code rows} rows.
     */
    private static Duration deadline(int rows) {
        Duration given = seconds("bench.http.deadline", "0");
        return given.isZero() ? WARMUP.plus(MEASURE).plus(LATENCY).multipliedBy(3L * rows).plusSeconds(120) : given;
    }

    private static Duration seconds(String property, String fallback) {
        return Duration.ofMillis((long) (1000 * Double.parseDouble(System.getProperty(property, fallback))));
    }

    public static void main(String[] args) {
        main(setup -> List.of());
    }

    /** Runs the benchmark with {@code extension}'s rows after this module's, then exits the JVM. */
    public static void main(Extension extension) {
        DEADLINE.start(System.err, "%nHTTP benchmark: its deadline passed; stopping.%n");
        int status = 1;
        try {
            status = run(extension);
        } catch (Throwable e) {
            System.err.println("HTTP benchmark failed: " + e);
            e.printStackTrace();
        } finally {
            System.out.flush();
            System.err.flush();
            // Exits even while application contexts or client threads are still running.
            System.exit(status);
        }
    }

    /** One endpoint of the table: its name, its request and the row it is compared with (its anchor). */
    public record Row(String name, Supplier<HttpRequest> request, int anchor) {
    }

    /**
     * The row without the filter whose handler makes one call to the server of {@code row}'s store (after the
     * handler's row when {@code row}'s handler writes): the most a filter calling that store once per request can
     * reach, its floor in the table; {@code null} for a row without a shared store.
     */
    static String floorOf(String row) {
        String server = row.startsWith("JDBC") ? "PostgreSQL query" : row.startsWith("MariaDB") ? "MariaDB query"
                : row.startsWith("Redis") ? "Redis script call" : null;
        if (server == null) {
            return null;
        }
        return row.contains("handler writes") ? "no filter, handler writes + one " + server
                : "no filter, handler: one " + server;
    }

    private static int indexOf(List<Row> rows, String name) {
        for (int i = 0; name != null && i < rows.size(); i++) {
            if (rows.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * More rows measured in the same run, for stores this module cannot depend on (the Redis store lives in
     * fenceguard-redis, which depends on this module): they start their own instances through {@link Setup}.
     */
    public interface Extension extends AutoCloseable {

        List<Row> rows(Setup setup) throws Exception;

        @Override
        default void close() throws Exception {
        }
    }

    /** What an {@link Extension} needs: instances, the headers and the signer of this run. */
    public static final class Setup {

        private final Instances instances;
        private final DataSource pool;
        private final RequestSignatures signer;
        private final String unsigned;
        private final String compact;
        private final List<Row> rows = new ArrayList<>();

        private Setup(Instances instances, DataSource pool, RequestSignatures signer, String unsigned,
                String compact) {
            this.instances = instances;
            this.pool = pool;
            this.signer = signer;
            this.unsigned = unsigned;
            this.compact = compact;
        }

        /**
         * Starts an instance of the test app with {@code settings} and {@code store} (else the one the settings
         * name), with the run's PostgreSQL pool as its DataSource when {@code dataSource}; answers its port.
         */
        public int start(String name, Map<String, String> settings, Supplier<HighWaterStore> store, boolean dataSource) {
            Map<String, Object> properties = new LinkedHashMap<>(Instances.defaults());
            properties.putAll(settings);
            return Instances.port(instances.start(name, properties, ctx -> {
                if (dataSource) {
                    sharePool(ctx);
                }
                if (store != null) {
                    ctx.registerBean(TestWiring.CustomStore.class, () -> store::get);
                }
            }));
        }

        /**
         * Starts an instance without the filter whose handler of PUT /round-trip/{id} makes one call to a store
         * server ({@code roundTrip}), and of PUT /writes-round-trip/{id} writes its row first; answers its port.
         */
        public int startRoundTrip(String name, TestApp.RoundTrip roundTrip) {
            Map<String, Object> properties = new LinkedHashMap<>(Instances.defaults());
            properties.put("test.fencing", "false");
            return Instances.port(instances.start(name, properties, ctx -> {
                ctx.registerBean(TestApp.RoundTrip.class, () -> roundTrip);
                sharePool(ctx);
            }));
        }

        /** The same request every time, no fencing header, to {@code path}. */
        public Supplier<HttpRequest> plain(int port, String path) {
            return fixed(port, null, path);
        }

        /** The index the next row added will have. */
        public int rowCount() {
            return rows.size();
        }

        /** The index of the row named {@code name}, the anchor of rows compared with it. */
        public int indexOf(String name) {
            int at = HttpGuardBenchmark.indexOf(rows, name);
            if (at < 0) {
                throw new IllegalArgumentException("no row " + name);
            }
            return at;
        }

        /** The run's pool as the instance's DataSource, left open when the instance stops (its destroy method off). */
        private void sharePool(org.springframework.context.support.GenericApplicationContext ctx) {
            ctx.registerBean(DataSource.class, () -> pool, definition -> definition.setDestroyMethodName(""));
        }

        /** The same request every time, with the compact signed header ({@code null} path: /accounts/bench). */
        public Supplier<HttpRequest> compact(int port, String path) {
            return fixed(port, compact, path == null ? "/accounts/bench" : path);
        }

        /** A new request signature and nonce for every request. */
        public Supplier<HttpRequest> requestSigned(int port) {
            return signed(port, signer, unsigned);
        }

        /** A new request signature and nonce for every request to {@code path}. */
        public Supplier<HttpRequest> requestSigned(int port, String path) {
            return signed(URI.create("http://127.0.0.1:" + port + path), signer, unsigned);
        }

        /** As {@link #requestSigned}, each request with an {@code Idempotency-Key} of its own. */
        public Supplier<HttpRequest> requestSignedWithKeys(int port) {
            URI uri = uri(port);
            String run = Long.toString(System.nanoTime(), 36);
            java.util.concurrent.atomic.AtomicLong keys = new java.util.concurrent.atomic.AtomicLong();
            return () -> {
                HttpRequest.Builder builder = HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT)
                        .PUT(HttpRequest.BodyPublishers.noBody())
                        .header("Idempotency-Key", run + "-" + keys.incrementAndGet());
                signer.sign("PUT", uri, unsigned, new byte[0]).forEach(builder::header);
                return builder.build();
            };
        }
    }

    /**
     * A store that keeps nonces and idempotency keys but decides a key's claim apart from the admission: nonce and
     * mark in one call, the claim in another, as a store without {@code IdempotentAdmissionStore} does.
     */
    public record ClaimApart<S extends SignedAdmissionStore & NonceStore & IdempotencyStore>(S store)
            implements SignedAdmissionStore, NonceStore, IdempotencyStore {

        @Override
        public Admission admit(Fence presented) {
            return store.admit(presented);
        }

        @Override
        public java.util.Optional<Admission> admit(Fence presented, String nonce, java.time.Instant expires) {
            return store.admit(presented, nonce, expires);
        }

        @Override
        public java.util.Optional<Admission> admit(Fence presented, Nonce nonce) {
            return store.admit(presented, nonce);
        }

        @Override
        public List<java.util.Optional<Admission>> admitEach(Fence presented, List<Nonce> nonces) {
            return store.admitEach(presented, nonces);
        }

        @Override
        public boolean firstUse(String nonce, java.time.Instant expires) {
            return store.firstUse(nonce, expires);
        }

        @Override
        public Claim claim(Fence presented, String key, String fingerprint) {
            return store.claim(presented, key, fingerprint);
        }

        @Override
        public void complete(ResourceName resource, String key, RecordedResponse response) {
            store.complete(resource, key, response);
        }

        @Override
        public void abandon(ResourceName resource, String key) {
            store.abandon(resource, key);
        }
    }

    private static int run(Extension extension) throws Exception {
        SigningKeys keys = SigningKeys.of(Map.of("k1", Base64.getDecoder().decode(Instances.KEY_A)), "k1");
        Fence fence = new Fence(ResourceName.of("account:bench"), FencingToken.of(42));
        String unsigned = FenceHeader.of(fence).value();
        String compact = keys.header(fence).value();
        RequestSignatures signer = RequestSignatures.of(keys, "Fencing-Token");
        // One pool for every instance (each row runs alone): together they stay within the server's connection limit.
        try (BenchPostgres postgres = new BenchPostgres(); HikariDataSource pool = postgres.pool(2 * THREADS);
                BenchMariaDb mariadb = new BenchMariaDb(); HikariDataSource mariaPool = mariadb.pool(2 * THREADS);
                Instances instances = new Instances();
                LoadDriver driver = new LoadDriver(THREADS, ATTEMPTS, REQUEST_TIMEOUT); extension) {
            Setup setup = new Setup(instances, pool, signer, unsigned, compact);
            List<Row> rows = setup.rows;
            int openPort = setup.start("open", Map.of("test.fencing", "false"), null, false);
            rows.add(new Row("no filter", fixed(openPort, null), 0));
            // The same endpoint sent request-signed requests (signed on the client thread, four more headers): what the
            // signature costs before any filter reads it.
            rows.add(new Row("no filter, request-signed requests", signed(openPort, signer, unsigned), 0));
            // What one call per request to the store's server costs, without the filter: a shared store's ceiling.
            int queryPort = setup.startRoundTrip("postgres-round-trip", () -> {
                try (java.sql.Connection c = pool.getConnection(); java.sql.Statement query = c.createStatement()) {
                    query.execute("SELECT 1");
                }
            });
            rows.add(new Row("no filter, handler: one PostgreSQL query", fixed(queryPort, null, "/round-trip/bench"), 0));
            // What a request-signed row must do at least: record its nonce, one write per request (committed without
            // waiting for its WAL flush, as the store's), compared with the one query. A nonce of this run's own.
            String run = Long.toString(System.nanoTime(), 36);
            java.util.concurrent.atomic.AtomicLong nonces = new java.util.concurrent.atomic.AtomicLong();
            int writePort = setup.startRoundTrip("postgres-nonce-write", () -> {
                try (java.sql.Connection c = pool.getConnection(); java.sql.PreparedStatement insert = c.prepareStatement(
                        "WITH fresh AS (INSERT INTO fenceguard_http_nonce (nonce, expires_at) VALUES (?, ?) "
                                + "ON CONFLICT (nonce) DO NOTHING RETURNING 1) "
                                + "SELECT (SELECT count(*) FROM fresh), set_config('synchronous_commit', 'off', true)")) {
                    insert.setString(1, "bench-write-" + run + "-" + nonces.incrementAndGet());
                    insert.setTimestamp(2, java.sql.Timestamp.from(java.time.Instant.now().plusSeconds(300)));
                    insert.executeQuery().close();
                }
            });
            rows.add(new Row("no filter, handler: one PostgreSQL nonce write", fixed(writePort, null,
                    "/round-trip/bench"), indexOf(rows, "no filter, handler: one PostgreSQL query")));
            int unsignedPort = setup.start("memory-unsigned", Map.of("test.unsigned", "true"), null, false);
            rows.add(new Row("in-memory, unsigned", fixed(unsignedPort, unsigned), 0));
            int memoryPort = setup.start("memory", Map.of(), null, false);
            rows.add(new Row("in-memory, compact signed", fixed(memoryPort, compact), 0));
            int memoryRequestPort = setup.start("memory-request", Map.of("test.request-signatures", "true"), null, false);
            rows.add(new Row("in-memory, request-signed", signed(memoryRequestPort, signer, unsigned), 0));
            int jdbcPort = setup.start("jdbc", Map.of("test.store", "jdbc"), null, true);
            rows.add(new Row("JDBC, compact signed", fixed(jdbcPort, compact), 0));
            int jdbcRequestPort = setup.start("jdbc-request", Map.of("test.store", "jdbc",
                    "test.request-signatures", "true"), null, true);
            rows.add(new Row("JDBC, request-signed", signed(jdbcRequestPort, signer, unsigned), 0));
            // The same filters asking the store once per request: what sharing calls gains, in this run.
            int jdbcAlonePort = setup.start("jdbc-alone", Map.of("test.store", "jdbc", "test.coalescing", "false"),
                    null, true);
            rows.add(new Row("JDBC, compact, call per request", fixed(jdbcAlonePort, compact), 0));
            int jdbcRequestAlonePort = setup.start("jdbc-request-alone", Map.of("test.store", "jdbc",
                    "test.request-signatures", "true", "test.coalescing", "false"), null, true);
            rows.add(new Row("JDBC, request-signed, call/request", signed(jdbcRequestAlonePort, signer, unsigned), 0));
            // Each request with an idempotency key of its own: its claim in the admission's statement, or apart.
            int jdbcKeyedPort = setup.start("jdbc-request-keyed", Map.of("test.store", "jdbc",
                    "test.request-signatures", "true", "test.idempotency", "true"), null, true);
            rows.add(new Row("JDBC, request-signed + key", setup.requestSignedWithKeys(jdbcKeyedPort), 0));
            int jdbcKeyedApartPort = setup.start("jdbc-request-keyed-apart", Map.of("test.request-signatures", "true",
                    "test.idempotency", "true"), () -> new ClaimApart<>(JdbcHighWaterStore.of(pool)),
                    false);
            rows.add(new Row("JDBC, request-signed + key apart", setup.requestSignedWithKeys(jdbcKeyedApartPort), 0));
            // The JDBC store on MariaDB: its one-call and one-write rows, compact and request-signed. Its nonce's
            // insert waits for its flush (MariaDB has no commit that does not, per transaction).
            int mariaQueryPort = setup.startRoundTrip("mariadb-round-trip", () -> {
                try (java.sql.Connection c = mariaPool.getConnection(); java.sql.Statement query = c.createStatement()) {
                    query.execute("SELECT 1");
                }
            });
            rows.add(new Row("no filter, handler: one MariaDB query", fixed(mariaQueryPort, null, "/round-trip/bench"), 0));
            int mariaWritePort = setup.startRoundTrip("mariadb-nonce-write", () -> {
                try (java.sql.Connection c = mariaPool.getConnection(); java.sql.PreparedStatement insert = c.prepareStatement(
                        "INSERT IGNORE INTO fenceguard_http_nonce (nonce, expires_at) VALUES (?, ?)")) {
                    insert.setString(1, "bench-write-" + run + "-" + nonces.incrementAndGet());
                    insert.setTimestamp(2, java.sql.Timestamp.from(java.time.Instant.now().plusSeconds(300)));
                    insert.executeUpdate();
                }
            });
            rows.add(new Row("no filter, handler: one MariaDB nonce write", fixed(mariaWritePort, null,
                    "/round-trip/bench"), indexOf(rows, "no filter, handler: one MariaDB query")));
            JdbcHighWaterStore mariaStore = JdbcHighWaterStore.of(mariaPool);
            int mariaPort = setup.start("mariadb", Map.of(), () -> mariaStore, false);
            rows.add(new Row("MariaDB, compact signed", fixed(mariaPort, compact), 0));
            int mariaRequestPort = setup.start("mariadb-request", Map.of("test.request-signatures", "true"),
                    () -> mariaStore, false);
            rows.add(new Row("MariaDB, request-signed", signed(mariaRequestPort, signer, unsigned), 0));
            int openWritesPort = setup.start("open-writes", Map.of("test.fencing", "false"), null, true);
            int writesAnchor = rows.size();
            rows.add(new Row("no filter, handler writes", fixed(openWritesPort, null, "/writes/bench"), writesAnchor));
            rows.add(new Row("no filter, handler writes + one PostgreSQL query", fixed(queryPort, null,
                    "/writes-round-trip/bench"), writesAnchor));
            int jdbcWritesPort = setup.start("jdbc-writes", Map.of("test.store", "jdbc"), null, true);
            rows.add(new Row("JDBC, handler writes", fixed(jdbcWritesPort, compact, "/writes/bench"), writesAnchor));
            int joinedWritesPort = setup.start("jdbc-joined-writes", Map.of("test.store", "jdbc",
                    "test.join-transaction", "true"), null, true);
            rows.add(new Row("JDBC joined, handler writes", fixed(joinedWritesPort, compact, "/writes/bench"),
                    writesAnchor));
            int jdbcSignedWritesPort = setup.start("jdbc-request-writes", Map.of("test.store", "jdbc",
                    "test.request-signatures", "true"), null, true);
            rows.add(new Row("JDBC, request-signed, handler writes", setup.requestSigned(jdbcSignedWritesPort,
                    "/writes/bench"), writesAnchor));
            rows.addAll(extension.rows(setup));
            postgres.createWritesTable();
            rows = selected(rows);
            Duration deadline = deadline(rows.size());
            DEADLINE.moveTo(deadline);

            System.out.printf("%nfenceguard HTTP benchmark: PUT /accounts/bench, %d client threads (java.net.http, "
                    + "HTTP/1.1), %.1f s per endpoint in %d rounds after %.1f s warm-up each; JDBC store on %s%n",
                    THREADS, MEASURE.toMillis() / 1e3, ROUNDS, WARMUP.toMillis() / 1e3, postgres.describe());
            System.out.printf("request timeout %.1f s, %d attempts per request, deadline %d s%n",
                    REQUEST_TIMEOUT.toMillis() / 1e3, ATTEMPTS, deadline.toSeconds());
            for (Row row : rows) {
                driver.drive(row.request(), WARMUP);
                TestApp.REACHED.clear();
            }
            long warmupErrors = driver.errorCount();
            long warmupFailed = driver.failedCount();
            Duration slice = MEASURE.dividedBy(ROUNDS);
            List<List<long[]>> samples = new ArrayList<>();
            long[] failed = new long[rows.size()];
            long[] appCpu = new long[rows.size()];
            double[][] perRound = new double[rows.size()][ROUNDS];
            for (int i = 0; i < rows.size(); i++) {
                samples.add(new ArrayList<>());
            }
            for (int round = 0; round < ROUNDS; round++) {
                for (int k = 0; k < rows.size(); k++) {
                    int i = (k + round) % rows.size();
                    long cpu = ProcessCpu.nanos();
                    Map<Long, Long> clientCpu = ProcessCpu.threads(LoadDriver::clientThread);
                    LoadDriver.Samples got = driver.drive(rows.get(i).request(), slice);
                    // The servers' share: the process's CPU but the load driver's threads'.
                    appCpu[i] += ProcessCpu.nanos() - cpu
                            - ProcessCpu.spent(clientCpu, ProcessCpu.threads(LoadDriver::clientThread));
                    TestApp.REACHED.clear();
                    samples.get(i).add(got.latencies());
                    failed[i] += got.failed();
                    perRound[i][round] = got.latencies().length * 1e9 / slice.toNanos();
                }
            }
            System.out.printf("%-52s %10s %10s %8s  %-34s %16s %8s %10s %10s%n", "endpoint", "req/s", "p50 µs",
                    "ratio", "anchor", "rounds req/s", "failed", "vs 1 call", "CPU µs");
            long[][] results = new long[rows.size()][];
            double[] cpuPerRequest = new double[rows.size()];
            for (int i = 0; i < rows.size(); i++) {
                results[i] = summary(samples.get(i), slice.multipliedBy(ROUNDS));
                long answered = samples.get(i).stream().mapToLong(part -> part.length).sum();
                cpuPerRequest[i] = answered == 0 ? Double.NaN : appCpu[i] / 1e3 / answered;
            }
            double[] vsFloor = new double[rows.size()];
            for (int i = 0; i < rows.size(); i++) {
                int floor = indexOf(rows, floorOf(rows.get(i).name()));
                vsFloor[i] = floor < 0 || results[floor][0] == 0 ? Double.NaN
                        : (double) results[i][0] / results[floor][0];
            }
            for (int i = 0; i < rows.size(); i++) {
                Row row = rows.get(i);
                long anchor = results[row.anchor()][0];
                System.out.printf("%-52s %10d %10d %8.2f  %-34s %16s %8d %10s %10.1f%n", row.name(), results[i][0],
                        results[i][1], anchor == 0 ? 0 : (double) results[i][0] / anchor, rows.get(row.anchor()).name(),
                        String.format("%.0f..%.0f", Arrays.stream(perRound[i]).min().orElse(0),
                                Arrays.stream(perRound[i]).max().orElse(0)), failed[i],
                        Double.isNaN(vsFloor[i]) ? "–" : String.format("%.2f", vsFloor[i]), cpuPerRequest[i]);
            }
            // The floor of a shared store's row: the same endpoint without the filter, one call to the store's server.
            for (int i = 0; i < rows.size(); i++) {
                Row row = rows.get(i);
                long anchor = results[row.anchor()][0];
                int floor = indexOf(rows, floorOf(row.name()));
                BenchTable.row("http", "PUT, " + THREADS + " client threads: " + row.name(), results[i][0], "req/s",
                        rows.get(row.anchor()).name(), anchor == 0 ? Double.NaN : (double) results[i][0] / anchor,
                        vsFloor[i], cpuPerRequest[i], floor < 0 ? Double.NaN : cpuPerRequest[floor]);
            }
            if (!LATENCY.isZero()) {
                openLoop(driver, rows, results);
            }
            BenchTable.print();
            return report(driver, warmupErrors, warmupFailed);
        }
    }

    /**
     * Latency added, open loop: each endpoint sent requests at a fixed rate for {@code bench.http.latency-seconds}; p50
     * and p99 from each request's due time. A shared store's row and its one-call row are both sent half of what the
     * one-call row answered closed-loop in this run, and the row is compared with it: at that rate the store's server
     * carries the load (at half the no-filter rate, the one-call endpoint itself queued up), so the difference is what
     * the filter adds. Any other row is sent half its anchor's closed-loop rate (the endpoint without the filter,
     * with the same handler) and compared with the anchor.
     */
    private static void openLoop(LoadDriver driver, List<Row> rows, long[][] results) throws InterruptedException {
        System.out.printf("%nopen loop, %.1f s per endpoint at half its anchor's closed-loop rate (a shared store's rows:"
                + " half their one-call row's); latency from each request's due time%n", LATENCY.toMillis() / 1e3);
        System.out.printf("%-52s %10s %10s %10s %12s %12s  %s%n", "endpoint", "req/s", "p50 µs", "p99 µs",
                "p50 added", "p99 added", "compared with");
        long[][] percentiles = new long[rows.size()][];
        double[] rates = new double[rows.size()];
        // each row's one-call row (-1: none), and the rows that are some row's one-call row
        int[] floor = new int[rows.size()];
        java.util.Set<Integer> floors = new java.util.HashSet<>();
        for (int i = 0; i < rows.size(); i++) {
            floor[i] = indexOf(rows, floorOf(rows.get(i).name()));
            if (floor[i] >= 0) {
                floors.add(floor[i]);
            }
        }
        for (int i = 0; i < rows.size(); i++) {
            int paceOf = floor[i] >= 0 ? floor[i] : floors.contains(i) ? i : rows.get(i).anchor();
            rates[i] = results[paceOf][0] / 2.0;
            if (rates[i] < 1) {
                continue;
            }
            long[] latencies = driver.driveAt(rows.get(i).request(), rates[i], LATENCY);
            TestApp.REACHED.clear();
            percentiles[i] = latencies.length == 0 ? null : new long[] {latencies[latencies.length / 2] / 1_000,
                latencies[Math.min(latencies.length - 1, (int) Math.ceil(0.99 * latencies.length) - 1)] / 1_000};
        }
        for (int i = 0; i < rows.size(); i++) {
            if (percentiles[i] == null) {
                continue;
            }
            int base = floor[i] >= 0 ? floor[i] : rows.get(i).anchor();
            // a one-call row runs at its own pace, not its anchor's: its percentiles stand alone
            boolean compared = base != i && percentiles[base] != null && !floors.contains(i);
            long p50 = compared ? percentiles[i][0] - percentiles[base][0] : 0;
            long p99 = compared ? percentiles[i][1] - percentiles[base][1] : 0;
            System.out.printf("%-52s %10.0f %10d %10d %12s %12s  %s%n", rows.get(i).name(), rates[i], percentiles[i][0],
                    percentiles[i][1], compared ? Long.toString(p50) : "–", compared ? Long.toString(p99) : "–",
                    compared ? rows.get(base).name() : "");
            String measurement = String.format("open loop at %.0f req/s: %s", rates[i], rows.get(i).name());
            if (compared) {
                // What the filter adds, its own and its anchor's percentiles in the measurement's name.
                String anchor = rows.get(base).name();
                BenchTable.row("http", String.format("%s, p50 added (%,d µs against %,d)", measurement,
                        percentiles[i][0], percentiles[base][0]), p50, "µs", anchor, Double.NaN, Double.NaN);
                BenchTable.row("http", String.format("%s, p99 added (%,d µs against %,d)", measurement,
                        percentiles[i][1], percentiles[base][1]), p99, "µs", anchor, Double.NaN, Double.NaN);
            } else {
                BenchTable.row("http", measurement + ", p50", percentiles[i][0], "µs", "–", Double.NaN, Double.NaN);
                BenchTable.row("http", measurement + ", p99", percentiles[i][1], "µs", "–", Double.NaN, Double.NaN);
            }
        }
    }

    /** The rows {@code bench.http.rows} names (a regular expression over the names) and their anchors; all without it. */
    private static List<Row> selected(List<Row> rows) {
        String pattern = System.getProperty("bench.http.rows", "");
        if (pattern.isBlank()) {
            return rows;
        }
        java.util.regex.Pattern names = java.util.regex.Pattern.compile(pattern);
        java.util.Set<Integer> kept = new java.util.TreeSet<>();
        for (int i = 0; i < rows.size(); i++) {
            if (names.matcher(rows.get(i).name()).find()) {
                kept.add(i);
                kept.add(rows.get(i).anchor());
                int floor = indexOf(rows, floorOf(rows.get(i).name()));
                if (floor >= 0) {
                    kept.add(floor);
                    kept.add(rows.get(floor).anchor());
                }
            }
        }
        if (kept.isEmpty()) {
            throw new IllegalArgumentException("bench.http.rows=" + pattern + " matches no row of " + rows.stream()
                    .map(Row::name).toList());
        }
        List<Integer> order = new ArrayList<>(kept);
        List<Row> result = new ArrayList<>();
        for (int i : order) {
            Row row = rows.get(i);
            result.add(new Row(row.name(), row.request(), order.indexOf(row.anchor())));
        }
        return result;
    }

    private static Supplier<HttpRequest> fixed(int port, String header) {
        return fixed(port, header, "/accounts/bench");
    }

    private static Supplier<HttpRequest> fixed(int port, String header, String path) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(REQUEST_TIMEOUT)
                .PUT(HttpRequest.BodyPublishers.noBody());
        if (header != null) {
            builder.header("Fencing-Token", header);
        }
        HttpRequest request = builder.build();
        return () -> request;
    }

    /** A new signature (and nonce) for every request, made on the client thread as a real caller would. */
    private static Supplier<HttpRequest> signed(int port, RequestSignatures signer, String fencing) {
        return signed(uri(port), signer, fencing);
    }

    private static Supplier<HttpRequest> signed(URI uri, RequestSignatures signer, String fencing) {
        return () -> {
            HttpRequest.Builder builder = HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT)
                    .PUT(HttpRequest.BodyPublishers.noBody());
            signer.sign("PUT", uri, fencing, new byte[0]).forEach(builder::header);
            return builder.build();
        };
    }

    private static URI uri(int port) {
        return URI.create("http://127.0.0.1:" + port + "/accounts/bench");
    }

    /** Prints the transient errors; the exit status: 1 when too many requests failed every attempt. */
    private static int report(LoadDriver driver, long warmupErrors, long warmupFailed) {
        long errors = driver.errorCount();
        System.out.printf("transient client errors, retried: %d (%d of them in warm-up) over %d answered requests%n",
                errors, warmupErrors, driver.answeredCount());
        driver.errors().forEach((kind, count) -> System.out.printf("  %8d × %s%n", count, kind));
        long failed = driver.failedCount();
        double share = failed / (double) Math.max(1, failed + driver.answeredCount());
        if (failed > 0) {
            System.out.printf("requests that failed all %d attempts: %d (%d of them in warm-up)%n", ATTEMPTS, failed,
                    warmupFailed);
        }
        if (share > MAX_FAILED_SHARE) {
            System.err.printf("HTTP benchmark: %.2f %% of the requests failed every attempt (more than %.0f %%); the "
                    + "figures above are not reliable%n", 100 * share, 100 * MAX_FAILED_SHARE);
            return 1;
        }
        return 0;
    }

    /** {requests per second, median latency in µs} of the latencies over {@code measured}. */
    private static long[] summary(List<long[]> parts, Duration measured) {
        long[] all = parts.stream().flatMapToLong(Arrays::stream).sorted().toArray();
        int count = all.length;
        return new long[] {count * 1_000_000_000L / measured.toNanos(), count == 0 ? 0 : all[count / 2] / 1_000};
    }
}
