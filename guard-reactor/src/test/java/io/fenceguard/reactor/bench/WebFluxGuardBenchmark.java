package io.fenceguard.reactor.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.admission.FenceHeader;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.InboundRequest;
import io.fenceguard.admission.NonceStore;
import io.fenceguard.admission.RequestSignatures;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.admission.JdbcHighWaterStore;
import io.fenceguard.reactor.r2dbc.TestR2dbc;
import io.fenceguard.reactor.webflux.FencingWebFilter;
import io.fenceguard.reactor.webflux.NettyServer;
import io.fenceguard.redis.RedisHighWaterStore;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.TestRedisson;
import io.fenceguard.test.support.TestServers;
import io.fenceguard.test.support.bench.BenchDeadline;
import io.fenceguard.test.support.bench.BenchTable;
import io.fenceguard.test.support.bench.ProcessCpu;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.scheduler.Schedulers;

/**
 * Requests/s and median latency of PUT /accounts/{id} (a small JSON body) on Reactor Netty through the WebFlux
 * {@link FencingWebFilter} (same token each time, so every request consults the store: in-memory on the event
 * loop; PostgreSQL and Redis on boundedElastic), with compact-signed headers and with request signatures (made
 * per request on the client thread), against the same handler without the filter, in the same run. All are
 * warmed up, then measured in rounds in a rotating order; figures are over all rounds, ratios against the
 * unfenced server. Two servers without the filter whose handler makes one trivial call to PostgreSQL or Redis on
 * boundedElastic show what a filter calling its store once per request could reach at most (the Redis call also
 * made without leaving the event loop, as a store answering asynchronously would). The filter on stores answering
 * without blocking (Redis through Lettuce, R2DBC on a pool) admits on the event loop; their ceilings are the same
 * calls made asynchronously by the handler of a server without the filter. Then the signature's
 * own cost, without a server: signatures and verifications per second.
 *
 * <p>Every request has a timeout, transient errors are retried and counted, the run has a deadline, and
 * the JVM always exits: 0 with figures, 1 on a failure, 3 when the deadline passed.
 *
 * <pre>
 * ./mvnw -B -pl guard-reactor -am -Dbench=webflux -DskipTests verify
 *   env GUARD_TEST_POSTGRES_URL (and _USER, _PASSWORD), GUARD_TEST_REDIS_URL: else embedded servers
 *   -Dbench.webflux.seconds=8 -Dbench.webflux.rounds=4 -Dbench.webflux.warmup=3 -Dbench.webflux.threads=8
 *   -Dbench.webflux.request-timeout=5 -Dbench.webflux.attempts=3 -Dbench.webflux.deadline=0
 *   -Dbench.webflux.signing-seconds=2
 *   -Dbench.webflux.rows=REGEX (measure only the servers whose name matches, with the unfenced one; e.g. to profile one)
 * </pre>
 */
public final class WebFluxGuardBenchmark {

    private static final int THREADS = Integer.getInteger("bench.webflux.threads", 8);
    private static final Duration WARMUP = seconds("bench.webflux.warmup", "3");
    private static final Duration MEASURE = seconds("bench.webflux.seconds", "8");
    private static final int ROUNDS = Math.max(1, Integer.getInteger("bench.webflux.rounds", 4));
    private static final Duration REQUEST_TIMEOUT = seconds("bench.webflux.request-timeout", "5");
    private static final int ATTEMPTS = Math.max(1, Integer.getInteger("bench.webflux.attempts", 3));
    private static final Duration SIGNING = seconds("bench.webflux.signing-seconds", "2");
    private static final int SERVERS = 19;
    private static final Duration DEADLINE = deadline();
    private static final double MAX_FAILED_SHARE = 0.01;
    private static final byte[] BODY = "{\"amount\":5,\"reference\":\"bench-0123456789\"}".getBytes(StandardCharsets.UTF_8);

    /** This JVM's CPU time: client threads and server together, per request measured (the stores' servers not in it). */
    private static final com.sun.management.OperatingSystemMXBean PROCESS =
            (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    private static final AtomicLong ERRORS = new AtomicLong();
    private static final AtomicLong FAILED = new AtomicLong();
    private static final Map<String, AtomicLong> ERROR_KINDS = new ConcurrentHashMap<>();

    private static Duration deadline() {
        Duration given = seconds("bench.webflux.deadline", "0");
        return given.isZero() ? WARMUP.plus(MEASURE).multipliedBy(SERVERS).plus(SIGNING.multipliedBy(20)).plusSeconds(120)
                : given;
    }

    /** The server's CPU per request answered (µs): the process's but the load driver's threads'. */
    private static double appCpuMicros(long[] appCpuNanos, long[][] results, int row) {
        return results[row][3] == 0 ? Double.NaN : appCpuNanos[row] / 1e3 / results[row][3];
    }

    /** The load driver's threads: its senders and the JDK client's (its executor, selector and workers). */
    private static boolean clientThread(String name) {
        return name.startsWith("bench-client") || name.startsWith("HttpClient-");
    }

    private static java.util.concurrent.ThreadFactory named(String name) {
        return task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    private static Duration seconds(String property, String fallback) {
        return Duration.ofMillis((long) (1000 * Double.parseDouble(System.getProperty(property, fallback))));
    }

    public static void main(String[] args) {
        BenchDeadline.after(DEADLINE)
                .start(System.err, "%nWebFlux benchmark: deadline of %d s passed; stopping.%n", DEADLINE.toSeconds());
        int status = 1;
        try {
            status = run();
        } catch (Throwable e) {
            System.err.println("WebFlux benchmark failed: " + e);
            e.printStackTrace();
        } finally {
            System.out.flush();
            System.err.flush();
            System.exit(status);
        }
    }

    private static NettyServer server(HighWaterStore store, SigningKeys keys, boolean immediate, boolean requestSigned) {
        return server(store, keys, immediate, requestSigned, true);
    }

    /**
     * No filter; the handler makes one blocking call to a store's server ({@code roundTrip}) on
     * {@code boundedElastic}, as the filter calls a shared store: what such a filter could reach at most.
     */
    private static NettyServer blockingRoundTripServer(java.util.concurrent.Callable<?> roundTrip) {
        return roundTripServer(() -> reactor.core.publisher.Mono.fromCallable(roundTrip)
                .subscribeOn(Schedulers.boundedElastic()));
    }

    /** No filter; the handler makes the call {@code roundTrip} gives, as it answers. */
    private static NettyServer roundTripServer(Supplier<reactor.core.publisher.Mono<?>> roundTrip) {
        RouterFunction<ServerResponse> routes = RouterFunctions.route()
                .PUT("/accounts/{id}", request -> request.bodyToMono(String.class)
                        .then(roundTrip.get())
                        .then(ServerResponse.ok().bodyValue("ok")))
                .build();
        return NettyServer.start(WebHttpHandlerBuilder.webHandler(RouterFunctions.toWebHandler(routes)).build());
    }

    private static NettyServer server(HighWaterStore store, SigningKeys keys, boolean immediate, boolean requestSigned,
            boolean coalescing) {
        return server(store, keys, immediate, requestSigned, coalescing, null);
    }

    /** The filter on {@code store}; with {@code idempotency}, it answers keyed requests from their first response. */
    private static NettyServer server(HighWaterStore store, SigningKeys keys, boolean immediate, boolean requestSigned,
            boolean coalescing, io.fenceguard.admission.IdempotencyStore idempotency) {
        RouterFunction<ServerResponse> routes = RouterFunctions.route()
                .PUT("/accounts/{id}", request -> request.bodyToMono(String.class).then(ServerResponse.ok().bodyValue("ok")))
                .build();
        WebHttpHandlerBuilder builder = WebHttpHandlerBuilder.webHandler(RouterFunctions.toWebHandler(routes));
        if (store != null) {
            InboundFence fence = InboundFence.of(List.of(FencedRoute.of(Set.of("PUT"), "/accounts/{id}", "account:{id}")),
                    store, keys);
            if (requestSigned) {
                fence = fence.withRequestSignatures((NonceStore) store.backend(), true);
            }
            FencingWebFilter filter = FencingWebFilter.of(fence, refusal -> { },
                    immediate ? Schedulers.immediate() : Schedulers.boundedElastic());
            filter = coalescing ? filter : filter.withoutCoalescing();
            builder.filter(idempotency == null ? filter : filter.withIdempotency(idempotency));
        }
        HttpHandler handler = builder.build();
        return NettyServer.start(handler);
    }

    private static int run() throws Exception {
        SigningKeys keys = SigningKeys.of(Map.of("k1", "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII)),
                "k1");
        TestR2dbc.jdbc();                                 // the guard's migrations: the high-water table
        JdbcEndpoint postgres = TestServers.postgres();
        HikariConfig pool = new HikariConfig();
        pool.setJdbcUrl(postgres.url());
        pool.setUsername(postgres.user());
        pool.setPassword(postgres.password());
        pool.setMaximumPoolSize(THREADS);
        String[] names = {"no filter", "in-memory store, compact", "JDBC store (PostgreSQL), compact",
                "Redis store, compact", "in-memory store, request-signed", "JDBC store (PostgreSQL), request-signed",
                "Redis store, request-signed", "JDBC store, compact, uncoalesced", "Redis store, compact, uncoalesced",
                "no filter, handler: one PostgreSQL query", "no filter, handler: one Redis script call",
                "no filter, request-signed requests", "no filter, handler: one Redis script call, async",
                "Redis store (Lettuce), compact, non-blocking", "R2DBC store (PostgreSQL), compact, non-blocking",
                "no filter, handler: one R2DBC query, async",
                "Redis store (Lettuce), request-signed, non-blocking", "R2DBC store (PostgreSQL), request-signed, non-blocking",
                "Redis store (Lettuce), request-signed + key, non-blocking",
                "no filter, handler: one Redis nonce write, async", "no filter, handler: one R2DBC nonce write, async"};
        // the rows whose requests are signed per request (those with "+ key" also carry an idempotency key each)
        java.util.Set<String> requestSigned = java.util.Set.of("in-memory store, request-signed",
                "JDBC store (PostgreSQL), request-signed", "Redis store, request-signed", "no filter, request-signed requests",
                "Redis store (Lettuce), request-signed, non-blocking", "R2DBC store (PostgreSQL), request-signed, non-blocking",
                "Redis store (Lettuce), request-signed + key, non-blocking");
        java.util.Set<String> unfenced = java.util.Set.of("no filter", "no filter, handler: one PostgreSQL query",
                "no filter, handler: one Redis script call", "no filter, handler: one Redis script call, async",
                "no filter, handler: one R2DBC query, async", "no filter, handler: one Redis nonce write, async",
                "no filter, handler: one R2DBC nonce write, async");
        List<NettyServer> servers = new ArrayList<>();
        List<Runnable> closing = new ArrayList<>();
        ExecutorService clients = Executors.newFixedThreadPool(THREADS, named("bench-client"));
        // this run's Redis keys, removed at the end
        String keyPrefix = "fg:bench:" + System.nanoTime() + ":";
        try (HikariDataSource dataSource = new HikariDataSource(pool)) {
            // Redisson answers without blocking too: these rows keep their store on boundedElastic, as they measure it
            RedisHighWaterStore redisMarks = RedisHighWaterStore.of(RedissonScriptClient.of(TestRedisson.shared()), keyPrefix);
            HighWaterStore redisStore = new Blocking(redisMarks);
            servers.add(server(null, keys, true, false));
            servers.add(server(InMemoryHighWaterStore.create(), keys, true, false));
            servers.add(server(JdbcHighWaterStore.of(dataSource), keys, false, false));
            servers.add(server(redisStore, keys, false, false));
            servers.add(server(InMemoryHighWaterStore.create(), keys, true, true));
            servers.add(server(JdbcHighWaterStore.of(dataSource), keys, false, true));
            servers.add(server(redisStore, keys, false, true));
            servers.add(server(JdbcHighWaterStore.of(dataSource), keys, false, false, false));
            servers.add(server(redisStore, keys, false, false, false));
            servers.add(blockingRoundTripServer(() -> {
                try (java.sql.Connection c = dataSource.getConnection(); java.sql.Statement query = c.createStatement()) {
                    return query.execute("SELECT 1");
                }
            }));
            io.fenceguard.redis.RedisScriptClient scripts = RedissonScriptClient.of(TestRedisson.shared());
            String roundTripKey = keyPrefix + "round-trip";
            servers.add(blockingRoundTripServer(() -> scripts.eval("return 1", io.fenceguard.redis.RedisScriptClient.Reply.LONG,
                    List.of(roundTripKey), List.of(), System.nanoTime() + REQUEST_TIMEOUT.toNanos())
                    .toCompletableFuture().join()));
            // the unfenced server again, sent request-signed requests: what signing and the longer header cost alone
            servers.add(server(null, keys, true, false));
            // the stores answering without blocking talk to Redis through Lettuce (Spring Data Redis, as Boot's default)
            org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory lettuce =
                    new org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory(
                            new org.springframework.data.redis.connection.RedisStandaloneConfiguration(
                                    TestServers.redis().host(), TestServers.redis().port()));
            lettuce.afterPropertiesSet();
            lettuce.start();
            closing.add(lettuce::destroy);
            io.fenceguard.redis.RedisScriptClient lettuceScripts =
                    io.fenceguard.redis.springdata.SpringDataRedisScriptClient.of(lettuce);
            // the same Redis call without leaving the event loop, through that client: what such a store could reach
            servers.add(roundTripServer(() -> reactor.core.publisher.Mono.fromCompletionStage(() -> lettuceScripts.evalAsync(
                    "return 1", io.fenceguard.redis.RedisScriptClient.Reply.LONG, List.of(roundTripKey), List.of(),
                    REQUEST_TIMEOUT.toNanos()))));
            // the filter on stores answering without blocking, and one call of R2DBC's on the event loop, pooled
            servers.add(server(RedisHighWaterStore.of(lettuceScripts, keyPrefix), keys, false, false));
            io.r2dbc.pool.ConnectionPool r2dbcPool = new io.r2dbc.pool.ConnectionPool(
                    io.r2dbc.pool.ConnectionPoolConfiguration.builder(TestR2dbc.r2dbc()).maxSize(THREADS).build());
            closing.add(r2dbcPool::dispose);
            servers.add(server(io.fenceguard.reactor.webflux.r2dbc.R2dbcHighWaterStore.of(r2dbcPool), keys, false, false));
            servers.add(roundTripServer(() -> reactor.core.publisher.Mono.usingWhen(r2dbcPool.create(),
                    c -> reactor.core.publisher.Flux.from(c.createStatement("SELECT 1").execute())
                            .concatMap(r -> r.map((row, meta) -> 1)).then(),
                    io.r2dbc.spi.Connection::close)));
            // request-signed on the stores answering without blocking; then with an idempotency key per request
            RedisHighWaterStore lettuceMarks = RedisHighWaterStore.of(lettuceScripts, keyPrefix);
            servers.add(server(lettuceMarks, keys, false, true));
            servers.add(server(io.fenceguard.reactor.webflux.r2dbc.R2dbcHighWaterStore.of(r2dbcPool), keys, false, true));
            servers.add(server(lettuceMarks, keys, false, true, true, lettuceMarks));
            // What a request-signed row must do at least, without blocking: record its nonce, one write per request
            // (Redis: SET NX with its expiry; PostgreSQL: an insert committed without waiting for its flush, as the
            // stores'). A nonce of this run's own.
            java.util.concurrent.atomic.AtomicLong nonces = new java.util.concurrent.atomic.AtomicLong();
            servers.add(roundTripServer(() -> reactor.core.publisher.Mono.fromCompletionStage(() -> lettuceScripts.evalAsync(
                    "return redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) and 1 or 0",
                    io.fenceguard.redis.RedisScriptClient.Reply.LONG, List.of(keyPrefix + "nonce-write:"
                            + nonces.incrementAndGet()), List.of("300000"), REQUEST_TIMEOUT.toNanos()))));
            servers.add(roundTripServer(() -> reactor.core.publisher.Mono.usingWhen(r2dbcPool.create(),
                    c -> reactor.core.publisher.Flux.from(c.createStatement("WITH fresh AS (INSERT INTO "
                                    + "fenceguard_http_nonce (nonce, expires_at) VALUES ($1, $2) ON CONFLICT (nonce) "
                                    + "DO NOTHING RETURNING 1) SELECT (SELECT count(*) FROM fresh), "
                                    + "set_config('synchronous_commit', 'off', true)")
                                    .bind(0, keyPrefix + "nonce-write:" + nonces.incrementAndGet())
                                    .bind(1, java.time.LocalDateTime.now().plusMinutes(5)).execute())
                            .concatMap(r -> r.map((row, meta) -> 1)).then(),
                    io.r2dbc.spi.Connection::close)));
            // a token of now, as a clock-floor lease mints it: not below the floor the Redis store set when it started
            long token = Math.max(System.currentTimeMillis() * 1000,
                    redisMarks.floor().map(FencingToken::value).orElse(0L));
            // an account of this run's own: the shared database may hold other runs' marks
            String account = "bench-" + Long.toString(System.nanoTime(), 36);
            Fence fence = new Fence(ResourceName.of("account:" + account), FencingToken.of(token));
            String compact = keys.header(fence).value();
            RequestSignatures signatures = RequestSignatures.of(keys, "Fencing-Token");
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(REQUEST_TIMEOUT).executor(Executors.newFixedThreadPool(2, named("bench-client-io"))).build();
            List<Supplier<HttpRequest>> requests = new ArrayList<>();
            if (servers.size() != names.length) {
                throw new IllegalStateException(servers.size() + " servers for " + names.length + " names");
            }
            AtomicLong idempotencyKeys = new AtomicLong();
            for (int i = 0; i < servers.size(); i++) {
                URI uri = URI.create(servers.get(i).baseUrl() + "/accounts/" + account);
                if (unfenced.contains(names[i])) {
                    HttpRequest plain = request(uri, Map.of());
                    requests.add(() -> plain);
                } else if (!requestSigned.contains(names[i])) {
                    HttpRequest fenced = request(uri, Map.of("Fencing-Token", compact));
                    requests.add(() -> fenced);
                } else if (names[i].contains("+ key")) {
                    // a key of its own per request, as a client sends each new operation
                    requests.add(() -> {
                        Map<String, String> headers = new java.util.HashMap<>(
                                signatures.sign("PUT", uri, FenceHeader.of(fence).value(), BODY));
                        headers.put("Idempotency-Key", account + "-" + idempotencyKeys.incrementAndGet());
                        return request(uri, headers);
                    });
                } else {
                    // signed per request on the client thread, as a signing client does: a nonce each time
                    requests.add(() -> request(uri, signatures.sign("PUT", uri, FenceHeader.of(fence).value(), BODY)));
                }
            }
            System.out.printf("%nfenceguard WebFlux benchmark: PUT /accounts/{id} (%d-byte body) on Reactor Netty, %d "
                    + "client threads (java.net.http, HTTP/1.1), %.1f s per server in %d rounds after %.1f s warm-up each; "
                    + "PostgreSQL %s, Redis %s%n", BODY.length, THREADS, MEASURE.toMillis() / 1e3, ROUNDS,
                    WARMUP.toMillis() / 1e3, postgres.url(), TestServers.redis().uri());
            // the rows asked for (bench.webflux.rows), always with their anchor, the unfenced server
            java.util.regex.Pattern wanted = java.util.regex.Pattern.compile(System.getProperty("bench.webflux.rows", ".*"));
            java.util.Set<Integer> kept = new java.util.TreeSet<>();
            for (int i = 0; i < requests.size(); i++) {
                if (i == 0 || wanted.matcher(names[i]).find()) {
                    kept.add(i);
                    int floor = floorOf(names, i);
                    if (floor >= 0) {
                        kept.add(floor);
                    }
                }
            }
            List<Integer> rows = new ArrayList<>(kept);
            for (int i : rows) {
                drive(http, clients, requests.get(i), WARMUP);
            }
            long warmupFailed = FAILED.get();
            Duration slice = MEASURE.dividedBy(ROUNDS);
            List<List<long[]>> samples = new ArrayList<>();
            double[][] perRound = new double[requests.size()][ROUNDS];
            long[] cpuNanos = new long[requests.size()];
            long[] appCpuNanos = new long[requests.size()];
            for (int i = 0; i < requests.size(); i++) {
                samples.add(new ArrayList<>());
            }
            for (int round = 0; round < ROUNDS; round++) {
                for (int k = 0; k < rows.size(); k++) {
                    int i = rows.get((k + round) % rows.size());
                    long cpu = PROCESS.getProcessCpuTime();
                    Map<Long, Long> clientCpu = ProcessCpu.threads(WebFluxGuardBenchmark::clientThread);
                    long[] latencies = drive(http, clients, requests.get(i), slice);
                    cpuNanos[i] += PROCESS.getProcessCpuTime() - cpu;
                    // The server's share: the process's CPU but the load driver's threads'.
                    appCpuNanos[i] += PROCESS.getProcessCpuTime() - cpu
                            - ProcessCpu.spent(clientCpu, ProcessCpu.threads(WebFluxGuardBenchmark::clientThread));
                    samples.get(i).add(latencies);
                    perRound[i][round] = latencies.length * 1e9 / slice.toNanos();
                }
            }
            System.out.printf("%-40s %10s %10s %10s %14s %20s %12s %10s%n", "server", "req/s", "p50 µs", "p99 µs",
                    "vs no filter", "rounds req/s", "JVM CPU µs", "vs 1 call");
            long[][] results = new long[requests.size()][];
            for (int i : rows) {
                results[i] = summary(samples.get(i), slice.multipliedBy(ROUNDS));
            }
            for (int i : rows) {
                int floor = floorOf(names, i);
                double vsFloor = floor < 0 || results[floor] == null || results[floor][0] == 0 ? Double.NaN
                        : (double) results[i][0] / results[floor][0];
                System.out.printf("%-40s %10d %10d %10d %14.2f %20s %12.0f %10s%n", names[i], results[i][0], results[i][1],
                        results[i][2], results[0][0] == 0 ? 0 : (double) results[i][0] / results[0][0],
                        String.format("%.0f..%.0f", Arrays.stream(perRound[i]).min().orElse(0),
                                Arrays.stream(perRound[i]).max().orElse(0)),
                        results[i][3] == 0 ? 0 : cpuNanos[i] / 1e3 / results[i][3],
                        Double.isNaN(vsFloor) ? "–" : String.format("%.2f", vsFloor));
                // The floor of a shared store's row: the server without the filter, one call to the store's server.
                BenchTable.row("webflux", "PUT, " + THREADS + " client threads: "
                        + names[i], results[i][0], "req/s", names[0],
                        results[0][0] == 0 ? Double.NaN : (double) results[i][0] / results[0][0], vsFloor,
                        appCpuMicros(appCpuNanos, results, i),
                        floor < 0 || results[floor] == null ? Double.NaN : appCpuMicros(appCpuNanos, results, floor));
            }
            System.out.printf("transient client errors, retried: %d%n", ERRORS.get());
            new TreeMap<>(ERROR_KINDS).forEach((kind, count) -> System.out.printf("  %8d × %s%n", count.get(), kind));
            long answered = Arrays.stream(results).filter(java.util.Objects::nonNull).mapToLong(r -> r[3]).sum();
            double share = FAILED.get() / (double) Math.max(1, FAILED.get() + answered);
            if (FAILED.get() > 0) {
                System.out.printf("requests that failed all %d attempts: %d (%d in warm-up)%n", ATTEMPTS, FAILED.get(),
                        warmupFailed);
            }
            signingCost(keys);
            BenchTable.print();
            if (share > MAX_FAILED_SHARE) {
                System.err.printf("WebFlux benchmark: %.2f %% of the requests failed; the figures are not reliable%n",
                        100 * share);
                return 1;
            }
            return 0;
        } finally {
            clients.shutdownNow();
            servers.forEach(NettyServer::close);
            closing.forEach(Runnable::run);
            try {
                TestRedisson.shared().getKeys().deleteByPattern(keyPrefix + "*");
                TestR2dbc.execute("DELETE FROM fenceguard_http_nonce WHERE nonce LIKE '" + keyPrefix + "%'");
            } catch (RuntimeException e) {
                System.out.println("could not remove the keys and nonces under " + keyPrefix + ": " + e);
            }
        }
    }

    /**
     * The server without the filter whose handler makes one call to the server of row {@code i}'s store: the most a
     * filter calling that store once per request can reach; -1 for a row without a shared store.
     */
    private static int floorOf(String[] names, int i) {
        boolean async = names[i].endsWith("non-blocking");
        String floor = names[i].startsWith("JDBC") ? "no filter, handler: one PostgreSQL query"
                : names[i].startsWith("R2DBC") ? "no filter, handler: one R2DBC query, async"
                : names[i].startsWith("Redis") ? "no filter, handler: one Redis script call" + (async ? ", async" : "")
                : null;
        return floor == null ? -1 : Arrays.asList(names).indexOf(floor);
    }

    private static HttpRequest request(URI uri, Map<String, String> headers) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofByteArray(BODY));
        headers.forEach(builder::header);
        return builder.build();
    }

    /**
     * The signature's own cost, apart from any server: per second, on one thread and on {@link #THREADS}, the
     * client's signing as {@code ReactiveFencingExchangeFilterFunction} does it (the body digested chunk by chunk,
     * one HMAC), the compact header's signature for comparison, and the server's verification (digest and HMAC).
     */
    private static void signingCost(SigningKeys keys) throws Exception {
        RequestSignatures signatures = RequestSignatures.of(keys, "Fencing-Token");
        Fence fence = new Fence(ResourceName.of("account:bench"), FencingToken.of(System.currentTimeMillis() * 1000));
        String unsigned = FenceHeader.of(fence).value();
        URI uri = URI.create("http://127.0.0.1:8080/accounts/bench");
        System.out.printf("%nsignature cost (no server): operations/s%n%-52s %14s %14s%n", "operation", "1 thread",
                THREADS + " threads");
        for (int size : new int[] {BODY.length, 16 * 1024}) {
            ByteBuffer body = ByteBuffer.wrap(new byte[size]);
            Map<String, String> signed = signatures.sign("PUT", uri, unsigned, new byte[size]);
            InboundRequest request = new InboundRequest("PUT", "/accounts/bench", uri,
                    name -> signed.containsKey(name) ? List.of(signed.get(name)) : List.of(), new byte[size]);
            signingRow("client: request signature, " + size + "-byte body", () -> {
                MessageDigest digest = RequestSignatures.newBodyDigest();
                digest.update(body.duplicate());
                return signatures.signDigest("PUT", uri, unsigned, RequestSignatures.contentDigestOf(digest));
            });
            signingRow("server: verify request signature, " + size + "-byte body",
                    () -> signatures.verify(request, unsigned));
        }
        signingRow("client: compact header signature", () -> keys.header(fence));
    }

    private static void signingRow(String name, java.util.concurrent.Callable<Object> operation) throws Exception {
        double[] perSecond = new double[2];
        int[] threads = {1, THREADS};
        for (int k = 0; k < 2; k++) {
            long end = System.nanoTime() + SIGNING.toNanos();
            ExecutorService pool = Executors.newFixedThreadPool(threads[k]);
            try {
                List<Future<Long>> counts = new ArrayList<>();
                long start = System.nanoTime();
                for (int t = 0; t < threads[k]; t++) {
                    counts.add(pool.submit(() -> {
                        long count = 0;
                        Object sink = null;
                        while (System.nanoTime() < end) {
                            sink = operation.call();
                            count++;
                        }
                        return sink == null ? -1 : count;
                    }));
                }
                long total = 0;
                for (Future<Long> count : counts) {
                    total += count.get(SIGNING.toMillis() + 10_000, TimeUnit.MILLISECONDS);
                }
                perSecond[k] = total * 1e9 / (System.nanoTime() - start);
            } finally {
                pool.shutdownNow();
            }
        }
        System.out.printf("%-52s %14.0f %14.0f%n", name, perSecond[0], perSecond[1]);
        io.fenceguard.test.support.bench.BenchTable.row("webflux-signing", name + ", 1 thread", (long) perSecond[0], "ops/s",
                "", Double.NaN, Double.NaN);
    }

    /** Latencies (ns) of the requests answered 200 in {@code duration} by {@link #THREADS} closed-loop clients. */
    private static long[] drive(HttpClient http, ExecutorService clients, Supplier<HttpRequest> request, Duration duration)
            throws Exception {
        long end = System.nanoTime() + duration.toNanos();
        List<Future<long[]>> futures = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            futures.add(clients.submit(() -> {
                long[] latencies = new long[1024];
                int count = 0;
                while (System.nanoTime() < end) {
                    long start = System.nanoTime();
                    if (send(http, request.get())) {
                        if (count == latencies.length) {
                            latencies = Arrays.copyOf(latencies, count * 2);
                        }
                        latencies[count++] = System.nanoTime() - start;
                    }
                }
                return Arrays.copyOf(latencies, count);
            }));
        }
        List<long[]> parts = new ArrayList<>();
        for (Future<long[]> future : futures) {
            parts.add(future.get(duration.toMillis() + REQUEST_TIMEOUT.toMillis() * ATTEMPTS + 10_000, TimeUnit.MILLISECONDS));
        }
        return parts.stream().flatMapToLong(Arrays::stream).toArray();
    }

    private static boolean send(HttpClient http, HttpRequest request) {
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                HttpResponse<Void> response = http.send(request, HttpResponse.BodyHandlers.discarding());
                if (response.statusCode() == 200) {
                    return true;
                }
                throw new IllegalStateException("status " + response.statusCode());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } catch (Exception e) {
                ERRORS.incrementAndGet();
                ERROR_KINDS.computeIfAbsent(e.getClass().getSimpleName() + ": " + e.getMessage(), k -> new AtomicLong())
                        .incrementAndGet();
            }
        }
        FAILED.incrementAndGet();
        return false;
    }

    /** {req/s, p50 µs, p99 µs, count}. */
    private static long[] summary(List<long[]> parts, Duration measured) {
        long[] all = parts.stream().flatMapToLong(Arrays::stream).sorted().toArray();
        int count = all.length;
        return new long[] {count * 1_000_000_000L / measured.toNanos(), count == 0 ? 0 : all[count / 2] / 1_000,
                count == 0 ? 0 : all[(int) Math.min(count - 1, (long) (count * 0.99))] / 1_000, count};
    }

    /** A store's blocking calls only (its non-blocking ones hidden): the filter asks it on boundedElastic. */
    private static final class Blocking implements io.fenceguard.admission.SignedAdmissionStore, NonceStore {

        private final RedisHighWaterStore store;

        Blocking(RedisHighWaterStore store) {
            this.store = store;
        }

        @Override
        public io.fenceguard.admission.Admission admit(Fence presented) {
            return store.admit(presented);
        }

        @Override
        public java.util.Optional<io.fenceguard.admission.Admission> admit(Fence presented, String nonce,
                java.time.Instant expires) {
            return store.admit(presented, nonce, expires);
        }

        @Override
        public List<java.util.Optional<io.fenceguard.admission.Admission>> admitEach(Fence presented,
                List<Nonce> nonces) {
            return store.admitEach(presented, nonces);
        }

        @Override
        public boolean firstUse(String nonce, java.time.Instant expires) {
            return store.firstUse(nonce, expires);
        }

        @Override
        public HighWaterStore backend() {
            return this;
        }

        @Override
        public boolean admissionsMayCoalesce() {
            return true;
        }

        @Override
        public String toString() {
            return store.toString();
        }
    }
}
