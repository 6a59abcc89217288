package io.fenceguard.http.filter.bench;

import io.fenceguard.admission.TokenBound;
import io.fenceguard.redis.RedisHighWaterStore;
import io.fenceguard.redis.RedisScriptClient;
import io.fenceguard.redis.jedis.JedisScriptClient;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.redis.springdata.SpringDataRedisScriptClient;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;

/**
 * The HTTP benchmark of fenceguard-http-filter ({@link HttpGuardBenchmark}: no filter, unsigned, compact signed,
 * request-signed; in-memory and JDBC stores) with the Redis store's rows in the same run: compact signed,
 * request-signed (admission and nonce in Redis), request-signed with an idempotency key per request (its claim
 * in the admission's script, and apart), and the handler that writes one PostgreSQL row, against that handler
 * without the filter. The store talks to Redis through the client the Boot starter takes by default, Spring Data
 * Redis on Lettuce; {@code -Dbench.http.redis.client=redisson} or {@code jedis} measures the others.
 *
 * <pre>
 * ./mvnw -B -pl guard-http-filter -am -Dbench=http -DskipTests verify
 *   env GUARD_TEST_REDIS_URL (default redis://127.0.0.1:6379), GUARD_TEST_POSTGRES_URL, _USER, _PASSWORD
 *   -Dbench.http.redis.client=lettuce (Boot's default), redisson or jedis
 *   and the -Dbench.http.* settings of HttpGuardBenchmark
 * </pre>
 */
public final class RedisHttpGuardBenchmark {

    private RedisHttpGuardBenchmark() {
    }

    public static void main(String[] args) {
        HttpGuardBenchmark.main(new RedisRows());
    }

    /** The Redis store's rows; its keys (under a prefix of this run's own) are removed at the end. */
    private static final class RedisRows implements HttpGuardBenchmark.Extension {

        private final String prefix = "fgbench-http-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        private RedissonClient redisson;
        private RedisScriptClient client;
        private LettuceConnectionFactory lettuce;
        private JedisPool jedis;

        @Override
        public List<HttpGuardBenchmark.Row> rows(HttpGuardBenchmark.Setup setup) {
            String url = System.getenv().getOrDefault("GUARD_TEST_REDIS_URL", "redis://127.0.0.1:6379").trim();
            Config config = new Config();
            config.useSingleServer().setAddress(url);
            redisson = Redisson.create(config);
            client = client(url, System.getProperty("bench.http.redis.client", "lettuce").trim().toLowerCase(Locale.ROOT));
            System.out.println("Redis store on " + url + " through " + client.getClass().getSimpleName()
                    + ", keys under " + prefix);
            // The run presents token 42 every time: the store's floor (set when it starts) must not be above it.
            RedisHighWaterStore store = RedisHighWaterStore.of(client, prefix, TokenBound.atMost(42));
            int compact = setup.start("redis", Map.of(), () -> store, false);
            int requestSigned = setup.start("redis-request", Map.of("test.request-signatures", "true"), () -> store,
                    false);
            int writes = setup.start("redis-writes", Map.of(), () -> store, true);
            int signedWrites = setup.start("redis-request-writes", Map.of("test.request-signatures", "true"),
                    () -> store, true);
            // The same filters asking the store once per request: what sharing calls gains, in this run.
            int compactAlone = setup.start("redis-alone", Map.of("test.coalescing", "false"), () -> store, false);
            int requestSignedAlone = setup.start("redis-request-alone", Map.of("test.request-signatures", "true",
                    "test.coalescing", "false"), () -> store, false);
            // Each request with an idempotency key of its own: its claim in the admission's script, or apart (a
            // store that does not decide both together, so the filter claims the key with a script of its own).
            int keyed = setup.start("redis-request-keyed", Map.of("test.request-signatures", "true",
                    "test.idempotency", "true"), () -> store, false);
            int keyedApart = setup.start("redis-request-keyed-apart", Map.of("test.request-signatures", "true",
                    "test.idempotency", "true"), () -> new HttpGuardBenchmark.ClaimApart<>(store), false);
            int writesAnchor = setup.indexOf("no filter, handler writes");
            // One call per request through the store's client, without the filter: a script that returns at once.
            int roundTrip = setup.startRoundTrip("redis-round-trip", () -> client.eval("return 1",
                    RedisScriptClient.Reply.LONG, List.of(prefix + "round-trip"), List.of(),
                    System.nanoTime() + 5_000_000_000L)
                    .toCompletableFuture().join());
            // What a request-signed row must do at least: record its nonce (SET NX with its expiry), one script call
            // per request, compared with the one call. A nonce of this run's own.
            java.util.concurrent.atomic.AtomicLong nonces = new java.util.concurrent.atomic.AtomicLong();
            int nonceWrite = setup.startRoundTrip("redis-nonce-write", () -> client.eval(
                    "return redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) and 1 or 0",
                    RedisScriptClient.Reply.LONG, List.of(prefix + "nonce-write:" + nonces.incrementAndGet()),
                    List.of("300000"), System.nanoTime() + 5_000_000_000L)
                    .toCompletableFuture().join());
            int oneCall = setup.rowCount();
            return List.of(
                    new HttpGuardBenchmark.Row("no filter, handler: one Redis script call",
                            setup.plain(roundTrip, "/round-trip/bench"), 0),
                    new HttpGuardBenchmark.Row("no filter, handler: one Redis nonce write",
                            setup.plain(nonceWrite, "/round-trip/bench"), oneCall),
                    new HttpGuardBenchmark.Row("Redis, compact signed", setup.compact(compact, null), 0),
                    new HttpGuardBenchmark.Row("Redis, compact, call per request", setup.compact(compactAlone, null), 0),
                    new HttpGuardBenchmark.Row("Redis, request-signed", setup.requestSigned(requestSigned), 0),
                    new HttpGuardBenchmark.Row("Redis, request-signed, call/request",
                            setup.requestSigned(requestSignedAlone), 0),
                    new HttpGuardBenchmark.Row("Redis, request-signed + key", setup.requestSignedWithKeys(keyed), 0),
                    new HttpGuardBenchmark.Row("Redis, request-signed + key apart",
                            setup.requestSignedWithKeys(keyedApart), 0),
                    new HttpGuardBenchmark.Row("no filter, handler writes + one Redis script call",
                            setup.plain(roundTrip, "/writes-round-trip/bench"), writesAnchor),
                    new HttpGuardBenchmark.Row("Redis, handler writes", setup.compact(writes, "/writes/bench"),
                            writesAnchor),
                    new HttpGuardBenchmark.Row("Redis, request-signed, handler writes",
                            setup.requestSigned(signedWrites, "/writes/bench"), writesAnchor));
        }

        private RedisScriptClient client(String url, String name) {
            URI uri = URI.create(url);
            switch (name) {
                case "redisson":
                    return RedissonScriptClient.of(redisson);
                case "jedis":
                    JedisPoolConfig pool = new JedisPoolConfig();
                    pool.setMaxTotal(32);
                    pool.setMaxIdle(32);
                    jedis = new JedisPool(pool, uri);
                    return JedisScriptClient.of(jedis);
                case "lettuce":
                    lettuce = new LettuceConnectionFactory(uri.getHost(), uri.getPort() > 0 ? uri.getPort() : 6379);
                    lettuce.afterPropertiesSet();
                    lettuce.start();
                    return SpringDataRedisScriptClient.of(lettuce);
                default:
                    throw new IllegalArgumentException("bench.http.redis.client: lettuce, redisson or jedis, not " + name);
            }
        }

        @Override
        public void close() {
            try {
                if (client != null) {
                    client.close();
                }
                if (redisson != null) {
                    redisson.getKeys().deleteByPattern(prefix + "*");
                }
            } finally {
                if (redisson != null) {
                    redisson.shutdown();
                }
                if (jedis != null) {
                    jedis.close();
                }
                if (lettuce != null) {
                    lettuce.destroy();
                }
            }
        }
    }
}
