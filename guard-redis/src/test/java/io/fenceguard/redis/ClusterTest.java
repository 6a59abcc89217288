package io.fenceguard.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.redis.internal.LeaseKeys;
import io.fenceguard.test.support.RedisClusterProcesses;
import io.fenceguard.test.support.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * Token rules 1-4 on a Redis Cluster of three masters started by the test: keys of one resource share
 * a slot, resources spread over all masters, tokens grow per resource across two clients, re-entry
 * keeps the token, one script call per acquisition, and tokens keep growing after every node is
 * flushed and after the node that owns a resource is killed and started again empty.
 */
class ClusterTest {

    private static final int RESOURCES = 30;
    private static final LeaseConfig LEASE = RedisClients.fastLease().build();

    private static RedisClusterProcesses cluster;
    private static RedissonClient clientA;
    private static RedissonClient clientB;

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterProcesses.start(3);
        clientA = RedisClients.cluster(cluster.uris());
        clientB = RedisClients.cluster(cluster.uris());
    }

    @AfterAll
    static void stopCluster() {
        if (clientA != null) {
            clientA.shutdown();
        }
        if (clientB != null) {
            clientB.shutdown();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void keysOfOneResourceShareANodeAndResourcesSpreadOverAllMasters() {
        RedisLeaseConfig config = RedisClients.fastRedis().build();
        try (LeaseManager manager = RedisClients.manager(clientA, config, LEASE)) {
            List<String> resources = resources("spread");
            List<Lease> held = new ArrayList<>();
            for (String resource : resources) {
                held.add(manager.acquire(resource, Duration.ofSeconds(5)));
            }
            Map<RedisProcess, Set<String>> keysByNode = new HashMap<>();
            for (RedisProcess node : cluster.nodes()) {
                keysByNode.put(node, new HashSet<>(strings(node.call("KEYS", config.keyPrefix() + "*"))));
            }
            Map<RedisProcess, Integer> resourcesByNode = new HashMap<>();
            for (String resource : resources) {
                LeaseKeys keys = keys(config, resource);
                long slot = slotOf(keys.lock());
                assertThat(slotOf(keys.delay())).as("slot of %s", keys.delay()).isEqualTo(slot);
                assertThat(slotOf(keys.seq())).as("slot of %s", keys.seq()).isEqualTo(slot);
                RedisProcess owner = ownerOfSlot(slot);
                assertThat(keysByNode.get(owner)).as("keys on the node serving slot %d", slot)
                        .contains(keys.lock(), keys.delay(), keys.seq());
                for (RedisProcess other : cluster.nodes()) {
                    if (other != owner) {
                        assertThat(keysByNode.get(other)).doesNotContain(keys.lock(), keys.delay(), keys.seq());
                    }
                }
                resourcesByNode.merge(owner, 1, Integer::sum);
            }
            assertThat(resourcesByNode).as("resources per master").hasSize(3);
            assertThat(keysByNode.values().stream().mapToInt(Set::size).sum()).isEqualTo(3 * RESOURCES);
            for (int i = 0; i < held.size(); i++) {
                Lease lease = held.get(i);
                assertThat(lease.isValid()).isTrue();
                RedisProcess owner = ownerOf(keys(config, resources.get(i)).lock());
                assertThat(owner.call("HGET", keys(config, resources.get(i)).lock(), "token"))
                        .isEqualTo(lease.token().toString());
                lease.close();
            }
        }
    }

    @Test
    void tokensStrictlyIncreasePerResourceAcrossTwoClients() throws Exception {
        RedisLeaseConfig config = RedisClients.fastRedis().build();
        LeaseManager managerA = RedisClients.manager(clientA, config, LEASE);
        LeaseManager managerB = RedisClients.manager(clientB, config, LEASE);
        List<String> resources = resources("race").subList(0, 12);
        assertThat(resources.stream().map(r -> ownerOf(keys(config, r).lock())).distinct()).hasSize(3);
        Map<String, List<Long>> grantOrder = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();
        resources.forEach(r -> {
            grantOrder.put(r, Collections.synchronizedList(new ArrayList<>()));
            inside.put(r, new AtomicInteger());
        });
        AtomicInteger remaining = new AtomicInteger(800);
        AtomicInteger overlaps = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            LeaseManager manager = t % 2 == 0 ? managerA : managerB;
            workers.add(pool.submit(() -> {
                while (remaining.getAndDecrement() > 0) {
                    // Few resources and four threads: plenty of contention per resource.
                    String resource = resources.get(ThreadLocalRandom.current().nextInt(resources.size()));
                    try (Lease lease = manager.acquire(resource, Duration.ofSeconds(30))) {
                        if (inside.get(resource).incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        grantOrder.get(resource).add(lease.token().value());
                        inside.get(resource).decrementAndGet();
                    }
                }
                return null;
            }));
        }
        try {
            for (Future<?> w : workers) {
                w.get(2, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
            managerA.close();
            managerB.close();
        }
        assertThat(overlaps).hasValue(0);
        assertThat(grantOrder.values().stream().mapToInt(List::size).sum()).isEqualTo(800);
        for (String resource : resources) {
            assertStrictlyIncreasing(resource, grantOrder.get(resource));
            assertThat(ownerOf(keys(config, resource).seq()).call("GET", keys(config, resource).seq()))
                    .as("sequence of %s holds the last token", resource)
                    .isEqualTo(String.valueOf(last(grantOrder.get(resource))));
        }
    }

    @Test
    void reentryKeepsTheTokenOnEveryMaster() {
        RedisLeaseConfig config = RedisClients.fastRedis().build();
        try (LeaseManager manager = RedisClients.manager(clientA, config, LEASE);
             LeaseManager other = RedisClients.manager(clientB, config, LEASE)) {
            for (String resource : onePerMaster(config, "reentry")) {
                FencingToken outerToken;
                try (Lease outer = manager.acquire(resource, Duration.ofSeconds(5))) {
                    outerToken = outer.token();
                    try (Lease inner = manager.acquire(resource, Duration.ofSeconds(5))) {
                        assertThat(inner.token()).isEqualTo(outer.token());
                        try (Lease innermost = manager.acquire(resource, Duration.ZERO)) {
                            assertThat(innermost.token()).isEqualTo(outer.token());
                        }
                    }
                    assertThat(outer.isValid()).isTrue();
                    assertThat(other.tryAcquire(resource)).as("%s still held after the inner closes", resource).isEmpty();
                    LeaseKeys keys = keys(config, resource);
                    assertThat(ownerOf(keys.lock()).call("HGET", keys.lock(), "token")).isEqualTo(outerToken.toString());
                }
                try (Lease next = other.acquire(resource, Duration.ofSeconds(5))) {
                    assertThat(next.token()).isGreaterThan(outerToken);
                }
            }
        }
    }

    @Test
    void eachAcquisitionIsOneScriptCallOnTheOwningMasterOnly() {
        RedisLeaseConfig config = RedisClients.fastRedis().build();
        // A long lease so that no renewal runs while the statistics are read.
        LeaseConfig longLease = RedisClients.fastLease().leaseTime(Duration.ofSeconds(60)).build();
        try (LeaseManager manager = RedisClients.manager(clientA, config, longLease)) {
            for (String resource : onePerMaster(config, "warm")) {
                manager.acquire(resource, Duration.ofSeconds(5)).close(); // loads the script on every master
            }
            for (String resource : onePerMaster(config, "round-trip")) {
                RedisProcess owner = ownerOf(keys(config, resource).lock());
                cluster.nodes().forEach(n -> n.call("CONFIG", "RESETSTAT"));
                Lease lease = manager.acquire(resource, Duration.ofSeconds(5));
                Map<RedisProcess, Map<String, Long>> stats = new HashMap<>();
                cluster.nodes().forEach(n -> stats.put(n, dataCommandStats(n)));
                assertThat(stats.get(owner)).as("commands on the owning master of %s", resource)
                        .containsExactlyInAnyOrderEntriesOf(Map.of(
                                "evalsha", 1L, "hget", 1L, "pttl", 1L, "time", 1L, "get", 1L, "hset", 1L,
                                "pexpire", 1L, "set", 2L, "exists", 1L));
                for (RedisProcess node : cluster.nodes()) {
                    if (node != owner) {
                        assertThat(stats.get(node)).as("commands on another master").isEmpty();
                    }
                }
                LeaseKeys keys = keys(config, resource);
                assertThat(owner.call("GET", keys.seq())).isEqualTo(lease.token().toString());
                assertThat(owner.call("HGET", keys.lock(), "token")).isEqualTo(lease.token().toString());
                lease.close();
            }
        }
    }

    @Test
    void batchedRenewalsKeepLeasesOnEveryMasterAndTellALostOneApart() throws Exception {
        RedisLeaseConfig config = RedisClients.fastRedis().build();
        try (LeaseManager manager = RedisClients.manager(clientA, config, LEASE)) {
            List<String> resources = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                resources.add("renew-many:" + i);
            }
            List<Lease> held = new ArrayList<>();
            for (String resource : resources) {
                held.add(manager.acquire(resource, Duration.ofSeconds(5)));
            }
            Set<RedisProcess> owners = new HashSet<>();
            resources.forEach(r -> owners.add(ownerOf(keys(config, r).lock())));
            assertThat(owners).as("masters owning the held resources").hasSize(3);
            LeaseKeys victim = keys(config, resources.get(77));
            RedisProcess victimOwner = ownerOf(victim.lock());
            victimOwner.call("DEL", victim.lock());
            // Three lease times: every lock would have expired without renewals sent to all three masters.
            sleep(3 * LEASE.leaseTime().toMillis());
            assertThat(held.get(77).isValid()).as("the lease whose lock was deleted").isFalse();
            assertThat(held.get(77).lossReason()).isPresent();
            for (int i = 0; i < held.size(); i++) {
                if (i != 77) {
                    assertThat(held.get(i).isValid()).as("lease on %s", resources.get(i)).isTrue();
                }
            }
            held.forEach(Lease::close);
        }
    }

    @Test
    void tokensKeepGrowingAfterEveryMasterIsFlushed() {
        RedisLeaseConfig config = RedisClients.fastRedis().build();
        try (LeaseManager managerA = RedisClients.manager(clientA, config, LEASE);
             LeaseManager managerB = RedisClients.manager(clientB, config, LEASE)) {
            List<String> resources = resources("flush").subList(0, 12);
            assertThat(resources.stream().map(r -> ownerOf(keys(config, r).lock())).distinct()).hasSize(3);
            Map<String, Long> lastToken = new HashMap<>();
            for (int round = 0; round < 5; round++) {
                for (String resource : resources) {
                    LeaseManager manager = round % 2 == 0 ? managerA : managerB;
                    try (Lease lease = manager.acquire(resource, Duration.ofSeconds(5))) {
                        Long before = lastToken.put(resource, lease.token().value());
                        if (before != null) {
                            assertThat(lease.token().value()).isGreaterThan(before);
                        }
                    }
                }
            }
            cluster.nodes().forEach(RedisProcess::flushAll);
            for (String resource : resources) {
                LeaseKeys keys = keys(config, resource);
                assertThat(ownerOf(keys.seq()).call("EXISTS", keys.seq())).as("sequence gone after FLUSHALL").isEqualTo(0L);
            }
            for (String resource : resources) {
                for (LeaseManager manager : List.of(managerB, managerA)) {
                    try (Lease lease = manager.acquire(resource, Duration.ofSeconds(5))) {
                        assertThat(lease.token().value()).as("token of %s after FLUSHALL", resource)
                                .isGreaterThan(lastToken.get(resource));
                        lastToken.put(resource, lease.token().value());
                    }
                }
            }
        }
    }

    @Test
    void tokensKeepGrowingAfterTheOwningMasterRestartsEmpty() {
        RedisLeaseConfig config = RedisClients.fastRedis()
                .openStateDuration(Duration.ofMillis(500))
                .build();
        try (LeaseManager managerA = RedisClients.manager(clientA, config, LEASE);
             LeaseManager managerB = RedisClients.manager(clientB, config, LEASE)) {
            String resource = resources("restart").get(0);
            LeaseKeys keys = keys(config, resource);
            RedisProcess owner = ownerOf(keys.lock());
            String ownerId = nodeId(owner);
            long highest = 0;
            for (int i = 0; i < 20; i++) {
                try (Lease lease = (i % 2 == 0 ? managerA : managerB).acquire(resource, Duration.ofSeconds(5))) {
                    assertThat(lease.token().value()).isGreaterThan(highest);
                    highest = lease.token().value();
                }
            }
            // A holds the resource while its master crashes and comes back without data.
            Lease stranded = managerA.acquire(resource, Duration.ofSeconds(5));
            assertThat(stranded.token().value()).isGreaterThan(highest);
            highest = stranded.token().value();
            assertThat(owner.call("GET", keys.seq())).isEqualTo(String.valueOf(highest));

            owner.restart();
            assertThat(nodeId(owner)).as("node id kept from nodes.conf").isEqualTo(ownerId);
            assertThat(owner.call("DBSIZE")).as("restarted empty").isEqualTo(0L);
            awaitClusterOk();
            assertThat(ownerOf(keys.lock())).as("same master serves the slot again").isSameAs(owner);

            Lease taken = acquireThroughOutage(managerB, resource);
            try {
                assertThat(taken.token().value()).as("token after the owner restarted empty").isGreaterThan(highest);
                assertThat(taken.token()).isGreaterThan(stranded.token());
                highest = taken.token().value();
                assertThat(owner.call("GET", keys.seq())).isEqualTo(String.valueOf(highest));
            } finally {
                taken.close();
            }
            awaitLost(stranded);
            stranded.close();
            for (int i = 0; i < 10; i++) {
                try (Lease lease = acquireThroughOutage(i % 2 == 0 ? managerA : managerB, resource)) {
                    assertThat(lease.token().value()).isGreaterThan(highest);
                    highest = lease.token().value();
                }
            }
        }
    }

    // ---- helpers ----

    private static List<String> resources(String kind) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < RESOURCES; i++) {
            names.add(kind + ":" + i);
        }
        return names;
    }

    /** One resource served by each master. */
    private static List<String> onePerMaster(RedisLeaseConfig config, String kind) {
        Map<RedisProcess, String> chosen = new HashMap<>();
        for (int i = 0; chosen.size() < cluster.nodes().size(); i++) {
            String resource = kind + ":" + i;
            chosen.putIfAbsent(ownerOf(keys(config, resource).lock()), resource);
        }
        return List.copyOf(chosen.values());
    }

    private static LeaseKeys keys(RedisLeaseConfig config, String resource) {
        return LeaseKeys.of(config.keyPrefix(), ResourceName.of(resource));
    }

    private static long slotOf(String key) {
        return (Long) cluster.nodes().get(0).call("CLUSTER", "KEYSLOT", key);
    }

    private static RedisProcess ownerOf(String key) {
        return ownerOfSlot(slotOf(key));
    }

    /** The master whose own line of {@code CLUSTER NODES} lists {@code slot}. */
    private static RedisProcess ownerOfSlot(long slot) {
        for (RedisProcess node : cluster.nodes()) {
            String[] fields = myselfLine(node).split(" ");
            for (int i = 8; i < fields.length; i++) {
                if (fields[i].startsWith("[")) {
                    continue; // a slot being migrated
                }
                String[] range = fields[i].split("-");
                long from = Long.parseLong(range[0]);
                long to = range.length > 1 ? Long.parseLong(range[1]) : from;
                if (slot >= from && slot <= to) {
                    return node;
                }
            }
        }
        throw new AssertionError("no master serves slot " + slot);
    }

    private static String myselfLine(RedisProcess node) {
        return String.valueOf(node.call("CLUSTER", "NODES")).lines()
                .filter(l -> l.contains("myself"))
                .findFirst().orElseThrow();
    }

    private static String nodeId(RedisProcess node) {
        return myselfLine(node).split(" ")[0];
    }

    private static void awaitClusterOk() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            boolean ok = cluster.nodes().stream().allMatch(n -> {
                String nodes = String.valueOf(n.call("CLUSTER", "NODES"));
                return String.valueOf(n.call("CLUSTER", "INFO")).contains("cluster_state:ok")
                        && nodes.lines().count() == cluster.nodes().size()
                        && nodes.lines().noneMatch(l -> l.contains("fail") || l.contains("disconnected"));
            });
            if (ok) {
                return;
            }
            sleep(100);
        }
        throw new AssertionError("cluster did not return to cluster_state:ok");
    }

    /** Acquires while Redisson reconnects: unavailability is retried for up to 30 s. */
    private static Lease acquireThroughOutage(LeaseManager manager, String resource) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return manager.acquire(resource, Duration.ofSeconds(5));
            } catch (LeaseUnavailableException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                sleep(200);
            }
        }
    }

    private static void awaitLost(Lease lease) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (lease.isValid() && System.nanoTime() < deadline) {
            sleep(50);
        }
        assertThat(lease.isValid()).as("lease whose lock vanished with the restart").isFalse();
        assertThat(lease.lossReason()).isPresent();
    }

    /** {@code INFO commandstats} without the commands that Redisson and this test send to manage connections. */
    private static Map<String, Long> dataCommandStats(RedisProcess node) {
        Set<String> admin = Set.of("config", "cluster", "ping", "info", "client", "hello", "command", "readonly",
                "select", "echo", "keys");
        Map<String, Long> calls = new TreeMap<>();
        String stats = String.valueOf(node.call("INFO", "commandstats"));
        stats.lines().filter(l -> l.startsWith("cmdstat_")).forEach(l -> {
            String name = l.substring(8, l.indexOf(':'));
            String base = name.contains("|") ? name.substring(0, name.indexOf('|')) : name;
            if (!admin.contains(base)) {
                String count = l.substring(l.indexOf("calls=") + 6);
                calls.put(name, Long.parseLong(count.substring(0, count.indexOf(','))));
            }
        });
        return calls;
    }

    private static void assertStrictlyIncreasing(String what, List<Long> tokens) {
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("token %d of %s", i, what).isGreaterThan(tokens.get(i - 1));
        }
    }

    private static long last(List<Long> tokens) {
        return tokens.get(tokens.size() - 1);
    }

    private static List<String> strings(Object reply) {
        List<String> out = new ArrayList<>();
        for (Object o : (List<?>) reply) {
            out.add(String.valueOf(o));
        }
        return out;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
