package io.fenceguard.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.redis.jedis.JedisScriptClient;
import io.fenceguard.test.support.RedisProcess;
import io.fenceguard.test.support.RedisSentinelGroup;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisSentinelPool;

/**
 * A master killed (SIGKILL) right after, and while, grants are handed out, a Sentinel failover to its replica, and
 * grants through a client that finds the new master through the sentinels (Jedis's {@link JedisSentinelPool}). Tokens
 * rest on a durable epoch (a counter standing in for the database sequence), so they rest on Redis's counter alone
 * while it lives: a counter that the replica has from before the last grants would mint their tokens again.
 * <ul>
 *   <li>With replica acknowledgement (the default), no token handed out before the failover is handed out again, and
 *   every token after it is above all of them.</li>
 *   <li>Without it, and with a replica that missed the last grants (frozen and cut off, so that it surely misses
 *   them), the promoted replica's counter hands out tokens again that were handed out before.</li>
 * </ul>
 */
class FailoverRightAfterGrantsTest {

    /** Short: a lock whose release died with the master lapses soon after the failover. */
    private static final LeaseConfig LEASE = LeaseConfig.builder().leaseTime(Duration.ofSeconds(3)).build();
    private static final List<String> RESOURCES = List.of("ledger:1", "ledger:2", "ledger:3", "ledger:4");

    private final AtomicLong epochs = new AtomicLong(1000);
    private final TokenEpochSource durable = epochs::incrementAndGet;

    @Test
    void acknowledgedGrantsAreNeverMintedAgainAfterAFailover() throws Exception {
        try (RedisSentinelGroup group = RedisSentinelGroup.start();
             JedisSentinelPool pool = new JedisSentinelPool(RedisSentinelGroup.MASTER_NAME, sentinels(group))) {
            RedisLeaseConfig config = RedisClients.fastRedis().tokenEpochSource(durable)
                    .callTimeout(Duration.ofSeconds(1)).openStateDuration(Duration.ofMillis(300)).build();
            // Per resource, in the order of the grants: each appended while its lease is held.
            Map<String, List<Long>> tokens = new ConcurrentHashMap<>();
            RESOURCES.forEach(r -> tokens.put(r, new CopyOnWriteArrayList<>()));
            Map<String, AtomicInteger> afterFailover = new ConcurrentHashMap<>();
            RESOURCES.forEach(r -> afterFailover.put(r, new AtomicInteger()));
            AtomicBoolean failedOver = new AtomicBoolean();
            AtomicInteger refusedOrFailed = new AtomicInteger();
            AtomicInteger unacknowledged = new AtomicInteger();
            List<Throwable> errors = new CopyOnWriteArrayList<>();
            try (LeaseManager manager = LeaseManager.of(RedisLeaseProvider.of(JedisScriptClient.of(pool), config), LEASE)) {
                List<Thread> granters = new ArrayList<>();
                for (int t = 0; t < 2; t++) {
                    int offset = t;
                    Thread granter = new Thread(() -> {
                        try {
                            for (int i = offset; afterFailover.values().stream().anyMatch(n -> n.get() < 10); i++) {
                                String resource = RESOURCES.get(i % RESOURCES.size());
                                boolean started = failedOver.get();
                                try (Lease lease = manager.acquire(resource, Duration.ofSeconds(2))) {
                                    tokens.get(resource).add(lease.token().value());
                                    if (started) {
                                        afterFailover.get(resource).incrementAndGet();
                                    }
                                } catch (UnacknowledgedGrantException e) {
                                    unacknowledged.incrementAndGet();
                                    Thread.sleep(50);
                                } catch (FenceguardException e) {
                                    // Refused while the master is gone, or its lock not given back before it died.
                                    refusedOrFailed.incrementAndGet();
                                    Thread.sleep(50);
                                }
                            }
                        } catch (Throwable e) {
                            errors.add(e);
                        }
                    }, "granter-" + t);
                    granter.setDaemon(true);
                    granter.start();
                    granters.add(granter);
                }
                // Right after, and while, grants are handed out.
                awaitGrants(tokens, 200, errors);
                group.master().kill();
                long killedAt = System.nanoTime();
                int handedOutBefore = count(tokens);
                Map<String, Long> highestBefore = new ConcurrentHashMap<>();
                tokens.forEach((r, list) -> highestBefore.put(r, list.isEmpty() ? 0L : list.get(list.size() - 1)));
                group.killMasterAndAwaitFailover();
                failedOver.set(true);
                long failoverMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
                // The new master has no replica: grants are refused (fail closed) until the old master is back, empty,
                // and the sentinels have made it the new master's replica.
                group.master().restart();
                for (Thread granter : granters) {
                    granter.join(TimeUnit.SECONDS.toMillis(90));
                    assertThat(granter.isAlive()).as("grants after the failover within 90 s").isFalse();
                }
                assertThat(errors).isEmpty();
                // Under load the sentinels may fail over once more (back to the old master, by then a replica of the
                // new one): the tokens below must hold across any number of failovers, so which node is master at the
                // end is reported, not asserted.
                int masterAtTheEnd = group.currentMasterPort();

                Set<Long> seen = new HashSet<>();
                for (String resource : RESOURCES) {
                    List<Long> list = tokens.get(resource);
                    for (int i = 1; i < list.size(); i++) {
                        assertThat(list.get(i)).as("token %d of %s, in grant order across the failover", i, resource)
                                .isGreaterThan(list.get(i - 1));
                    }
                    assertThat(list.get(list.size() - 1)).as("a grant of %s after the failover", resource)
                            .isGreaterThan(highestBefore.get(resource));
                    list.forEach(token -> assertThat(seen.add(token)).as("token %d handed out twice", token).isTrue());
                }
                System.out.printf("kill -9 of the master right after %d grants, failover in %d ms, %d grants in all "
                                + "(%d begun after the failover), %d refused for want of a replica's acknowledgement "
                                + "until the old master was back as a replica, %d failed otherwise meanwhile; no token "
                                + "repeated, every resource's tokens rising in grant order across the failover; master "
                                + "at the end: the %s%n",
                        handedOutBefore, failoverMs, count(tokens),
                        afterFailover.values().stream().mapToInt(AtomicInteger::get).sum(), unacknowledged.get(),
                        refusedOrFailed.get(),
                        masterAtTheEnd == group.replica().port() ? "first replica" : "old master, failed back to");
            }
        }
    }

    /**
     * Shown in one of up to three failovers: on a loaded machine a run has ended with the promoted replica's counter
     * gone and a new epoch taken (safe, and then nothing is repeated to show).
     */
    @Test
    void withoutAcknowledgementAReplicaThatMissedGrantsMintsTheirTokensAgain() {
        for (int run = 1; ; run++) {
            Set<Long> repeated = failoverWithoutAcknowledgement();
            if (!repeated.isEmpty() || run == 3) {
                assertThat(repeated).as("tokens handed out again after the failover").isNotEmpty();
                return;
            }
        }
    }

    /** Grants the replica has, grants it missed, a failover, grants after it: the tokens handed out again. */
    private Set<Long> failoverWithoutAcknowledgement() {
        try (RedisSentinelGroup group = RedisSentinelGroup.start();
             JedisSentinelPool pool = new JedisSentinelPool(RedisSentinelGroup.MASTER_NAME, sentinels(group))) {
            RedisLeaseConfig config = RedisClients.fastRedis().tokenEpochSource(durable)
                    .callTimeout(Duration.ofSeconds(1)).openStateDuration(Duration.ofMillis(300))
                    .replicaAcknowledgements(0, RedisLeaseConfig.DEFAULT_REPLICA_TIMEOUT).build();
            RedisProcess master = group.master();
            RedisProcess replica = group.replica();
            try (LeaseManager manager = LeaseManager.of(RedisLeaseProvider.of(JedisScriptClient.of(pool), config), LEASE)) {
                List<Long> replicated = grants(manager, 10);
                assertThat(master.call("WAIT", "1", "5000")).as("the replica has these").isEqualTo(1L);
                replica.freeze();
                List<Long> missed;
                try {
                    assertThat((Long) master.call("CLIENT", "KILL", "TYPE", "replica")).isGreaterThanOrEqualTo(1L);
                    missed = grants(manager, 10);
                    master.kill();
                } finally {
                    replica.thaw();
                }
                group.killMasterAndAwaitFailover();
                List<Long> later = new ArrayList<>();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (later.size() < 10) {
                    try (Lease lease = manager.acquire("ledger:1", Duration.ofSeconds(2))) {
                        later.add(lease.token().value());
                    } catch (FenceguardException e) {
                        assertThat(System.nanoTime()).as("grants after the failover within 30 s").isLessThan(deadline);
                    }
                }
                Set<Long> repeated = later.stream().filter(missed::contains).collect(Collectors.toSet());
                System.out.printf("without acknowledgement: %d tokens the replica missed %s, after the failover %s: "
                        + "%d handed out again%n", missed.size(), missed, later, repeated.size());
                assertThat(replicated).doesNotContainAnyElementsOf(later);
                return repeated;
            }
        }
    }

    private static List<Long> grants(LeaseManager manager, int n) {
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            try (Lease lease = manager.acquire("ledger:1", Duration.ofSeconds(2))) {
                tokens.add(lease.token().value());
            }
        }
        return tokens;
    }

    private static void awaitGrants(Map<String, List<Long>> tokens, int n, List<Throwable> errors) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (count(tokens) < n) {
            assertThat(errors).isEmpty();
            assertThat(System.nanoTime()).as("%d grants within 30 s", n).isLessThan(deadline);
            Thread.sleep(1);
        }
    }

    private static int count(Map<String, List<Long>> tokens) {
        return tokens.values().stream().mapToInt(List::size).sum();
    }

    private static Set<String> sentinels(RedisSentinelGroup group) {
        return group.sentinelUris().stream()
                .map(uri -> URI.create(uri).getHost() + ":" + URI.create(uri).getPort()).collect(Collectors.toSet());
    }
}
