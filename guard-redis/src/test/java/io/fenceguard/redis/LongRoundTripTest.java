package io.fenceguard.redis;

import static io.fenceguard.redis.ScriptStats.cached;
import static io.fenceguard.redis.ScriptStats.commandCalls;
import static io.fenceguard.redis.ScriptStats.refusedEvalSha;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import io.fenceguard.redis.internal.LeaseKeys;
import io.fenceguard.redis.jedis.JedisScriptClient;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.redis.springdata.SpringDataRedisScriptClient;
import io.fenceguard.test.support.RedisProcess;
import io.fenceguard.test.support.faults.DelayProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;

/**
 * A 1.5 s lease on a link whose round trip turns to 900 ms, through each client, each run on a fresh redis-server of
 * its own behind a {@link DelayProxy}:
 * <ul>
 *   <li>the first renewal, the first use of the renewal script, goes over the long link and keeps the lease: the
 *   scripts were loaded when the provider was made, so it costs one round trip (two, a refused EVALSHA and the
 *   script sent whole, would end the lease first);</li>
 *   <li>an acquire that gives up at the client (its call's time, a quarter of the lease, is shorter than the round
 *   trip) while Redis grants it leaves no lock behind once its give-up mark is in Redis, long before the lock would
 *   have expired.</li>
 * </ul>
 * Five runs of each per client; about two minutes, so behind {@code -Dfenceguard.redis.longRoundTrip=true}
 * ({@code -Dfenceguard.redis.longRoundTrip.runs=N} for more or fewer, {@code .clients=JEDIS,LETTUCE} for some).
 */
@EnabledIfSystemProperty(named = "fenceguard.redis.longRoundTrip", matches = "true")
class LongRoundTripTest {

    private static final Duration LEASE = Duration.ofMillis(1500);
    private static final Duration ROUND_TRIP = Duration.ofMillis(900);
    private static final int RUNS = Integer.getInteger("fenceguard.redis.longRoundTrip.runs", 5);
    private static final String CLIENTS = System.getProperty("fenceguard.redis.longRoundTrip.clients",
            "REDISSON,JEDIS,LETTUCE");

    /** A client on the proxy's port, as an application on a long link would configure it (seconds, not 1 s). */
    enum Client {
        REDISSON {
            @Override
            Opened open(int port) {
                Config config = new Config();
                var server = config.useSingleServer();
                server.setAddress("redis://127.0.0.1:" + port);
                server.setTimeout(5_000);
                server.setConnectTimeout(5_000);
                server.setRetryAttempts(0);
                server.setConnectionMinimumIdleSize(2);
                server.setConnectionPoolSize(8);
                RedissonClient redisson = Redisson.create(config);
                return new Opened(RedissonScriptClient.of(redisson), redisson::shutdown);
            }
        },
        JEDIS {
            @Override
            Opened open(int port) {
                // Connections opened ahead: on a long link a new one costs Jedis a round trip (CLIENT SETINFO) before
                // its first command, and the release channels' subscription takes one of the pool's.
                GenericObjectPoolConfig<Jedis> connections = new GenericObjectPoolConfig<>();
                connections.setMinIdle(4);
                JedisPool pool = new JedisPool(connections, "127.0.0.1", port, 5_000);
                try {
                    pool.preparePool();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                return new Opened(JedisScriptClient.of(pool), pool::close);
            }
        },
        LETTUCE {
            @Override
            Opened open(int port) {
                LettuceConnectionFactory factory = SpringDataFactories.lettuce("127.0.0.1", port);
                return new Opened(SpringDataRedisScriptClient.of(factory), factory::destroy);
            }
        };

        abstract Opened open(int port);
    }

    record Opened(RedisScriptClient client, Runnable close) {
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void theFirstRenewalOverTheLongLinkKeepsTheLease(Client client) throws Exception {
        assumeTrue(CLIENTS.contains(client.name()), "-Dfenceguard.redis.longRoundTrip.clients=" + CLIENTS);
        List<String> figures = new ArrayList<>();
        for (int run = 1; run <= RUNS; run++) {
            figures.add(firstRenewal(client));
        }
        System.out.printf("first renewal at %d ms round trip, %d ms lease (%s), %d of %d runs kept:%n  %s%n",
                ROUND_TRIP.toMillis(), LEASE.toMillis(), client, RUNS, RUNS, String.join("\n  ", figures));
    }

    private String firstRenewal(Client kind) throws Exception {
        try (RedisProcess redis = RedisProcess.start(); DelayProxy link = DelayProxy.start(redis.port())) {
            Opened opened = kind.open(link.port());
            // Calls get the time a long link needs; renewals wait at most the lease anyway.
            RedisLeaseConfig config = RedisClients.fastRedis().callTimeout(Duration.ofSeconds(3)).build();
            LeaseConfig leases = LeaseConfig.builder().leaseTime(LEASE).build();
            try (LeaseManager manager = LeaseManager.of(RedisLeaseProvider.of(opened.client(), config), leases)) {
                awaitCached(redis);
                Lease lease = manager.acquire("rtt:renewal", Duration.ofSeconds(5));
                link.addRoundTrip(ROUND_TRIP);
                long grantedAt = System.nanoTime();
                List<LeaseLossReason> lost = new CopyOnWriteArrayList<>();
                lease.onLost((l, reason) -> lost.add(reason));
                String lock = LeaseKeys.of(config.keyPrefix(), ResourceName.of("rtt:renewal")).lock();
                long leastRemaining = Long.MAX_VALUE;
                long leastTtl = Long.MAX_VALUE;

                // Two leases long: the first renewal lands at about interval + round trip, 1.4 s into a 1.5 s lease.
                long end = grantedAt + LEASE.multipliedBy(2).toNanos();
                while (System.nanoTime() < end) {
                    assertThat(lease.isValid()).as("valid over the long link, lost: " + lost).isTrue();
                    leastRemaining = Math.min(leastRemaining, lease.remaining().toMillis());
                    long ttl = (Long) redis.call("PTTL", lock);
                    assertThat(ttl).as("still in Redis").isPositive();
                    leastTtl = Math.min(leastTtl, ttl);
                    Thread.sleep(10);
                }
                assertThat(lost).isEmpty();
                assertThat(refusedEvalSha(redis)).as("EVALSHA refused with NOSCRIPT").isZero();
                String renewals = commandCalls(redis, "evalsha") + " EVALSHA, " + commandCalls(redis, "eval") + " EVAL";
                lease.close();
                return String.format("least remaining %d ms, least PTTL %d ms, %s", leastRemaining, leastTtl, renewals);
            } finally {
                opened.close().run();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void anAcquireThatGaveUpLeavesNoLockPastItsGiveUpMark(Client client) throws Exception {
        assumeTrue(CLIENTS.contains(client.name()), "-Dfenceguard.redis.longRoundTrip.clients=" + CLIENTS);
        List<String> figures = new ArrayList<>();
        for (int run = 1; run <= RUNS; run++) {
            figures.add(gaveUp(client));
        }
        System.out.printf("acquire given up at the client at %d ms round trip, %d ms lease (%s), %d of %d runs "
                        + "left no lock past the give-up mark:%n  %s%n", ROUND_TRIP.toMillis(), LEASE.toMillis(), client,
                RUNS, RUNS, String.join("\n  ", figures));
    }

    private String gaveUp(Client kind) throws Exception {
        try (RedisProcess redis = RedisProcess.start(); DelayProxy link = DelayProxy.start(redis.port())) {
            Opened opened = kind.open(link.port());
            // The default call time: a quarter of the lease, 375 ms, shorter than the round trip.
            RedisLeaseConfig config = RedisClients.fastRedis().build();
            LeaseConfig leases = LeaseConfig.builder().leaseTime(LEASE).build();
            try (LeaseManager manager = LeaseManager.of(RedisLeaseProvider.of(opened.client(), config), leases)) {
                awaitCached(redis);
                // The provider's first acquire asks the master how many replicas it has: asked on the short link.
                manager.acquire("rtt:first", Duration.ofSeconds(5)).close();
                String lock = LeaseKeys.of(config.keyPrefix(), ResourceName.of("rtt:gave-up")).lock();
                String markers = config.keyPrefix() + "{rtt:gave-up}:gaveup:*";
                link.addRoundTrip(ROUND_TRIP);
                long start = System.nanoTime();
                assertThatThrownBy(() -> manager.acquire("rtt:gave-up", Duration.ZERO))
                        .isInstanceOf(FenceguardException.class);
                long gaveUpMs = elapsedMs(start);
                long lockFirst = -1;
                long lockLast = -1;
                long markFirst = -1;
                boolean lockAfterMark = false;
                // Past the time the lock would have lived: granted at about half a round trip, for one lease.
                long end = start + ROUND_TRIP.plus(LEASE).plusMillis(500).toNanos();
                while (System.nanoTime() < end) {
                    long now = elapsedMs(start);
                    boolean marked = !((List<?>) redis.call("KEYS", markers)).isEmpty();
                    boolean locked = (Long) redis.call("EXISTS", lock) == 1L;
                    if (marked && markFirst < 0) {
                        markFirst = now;
                    }
                    if (locked) {
                        lockFirst = lockFirst < 0 ? now : lockFirst;
                        lockLast = now;
                        lockAfterMark |= markFirst >= 0;
                    }
                    Thread.sleep(2);
                }
                String figures = String.format("gave up after %d ms; lock in Redis from %d to %d ms, give-up mark from "
                        + "%d ms (the lock would have expired at about %d ms)", gaveUpMs, lockFirst, lockLast, markFirst,
                        lockFirst + LEASE.toMillis());
                assertThat(gaveUpMs).as(figures).isLessThan(ROUND_TRIP.toMillis());
                assertThat(lockFirst).as("Redis granted the lock after the client gave up: " + figures).isPositive();
                assertThat(markFirst).as("the give-up mark reached Redis: " + figures).isPositive();
                assertThat(lockAfterMark).as("a lock seen after the give-up mark: " + figures).isFalse();
                assertThat(lockLast - lockFirst).as("given back, not expired: " + figures)
                        .isLessThan(LEASE.toMillis() - 200);
                assertThat(redis.call("EXISTS", lock)).isEqualTo(0L);
                return figures;
            } finally {
                opened.close().run();
            }
        }
    }

    private static long elapsedMs(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    /**
     * The provider loads its scripts when it is made, waiting at most one call's time (a client's first connection
     * may take longer on a loaded machine, and then the load completes in the background): the long link comes after.
     */
    private static void awaitCached(RedisProcess redis) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!cached(redis).stream().allMatch(n -> n == 1L)) {
            assertThat(System.nanoTime()).as("every script in the server's cache within 10 s").isLessThan(deadline);
            Thread.sleep(20);
        }
    }
}
