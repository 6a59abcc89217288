package io.fenceguard.proof;

import io.fenceguard.test.support.RedisProcess;
import io.fenceguard.test.support.RedisSentinelGroup;
import io.fenceguard.test.support.faults.ClockShim;
import io.fenceguard.test.support.faults.DelayProxy;
import io.fenceguard.test.support.faults.ShiftedClock;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The servers of one run, all started here on free loopback ports and stopped at the end: a Redis
 * server behind a {@link DelayProxy} per client process and a Sentinel group (master, replica, three
 * sentinels), or instead of both, when the run locks on etcd, a three-member etcd cluster ({@link EtcdServers}); an
 * embedded PostgreSQL (its data directory kept across the nemesis's restarts), and a fresh database on
 * the MariaDB of {@code GUARD_TEST_MARIADB_URL} if set. The Redis server behind the proxy runs under
 * the clock shim of test support where it can be built, so the nemesis can step its clock.
 */
final class ProofServers implements AutoCloseable {

    private final RedisProcess single;
    private final ShiftedClock singleClock;
    /** One proxy per client process, in {@link Topology#processes()} order. */
    private final java.util.Map<String, DelayProxy> proxies = new java.util.LinkedHashMap<>();
    private final RedisSentinelGroup sentinel;
    private final Path postgresData;
    private final int postgresPort;
    private EmbeddedPostgres postgres;
    private final List<Topology.Database> databases = new ArrayList<>();
    private String mariaDatabase;
    private String mariaAdminUrl;
    /** The etcd cluster, when the run locks on etcd. */
    private EtcdServers etcd;

    ProofServers(String runId) throws IOException, SQLException {
        this(runId, Topology.REDIS);
    }

    /** The servers of a run whose locks are on {@code store}: {@link Topology#REDIS} or {@link Topology#ETCD}. */
    ProofServers(String runId, String store) throws IOException, SQLException {
        boolean redis = !Topology.ETCD.equals(store);
        // A run on etcd starts no Redis server: its clients lock on etcd only.
        singleClock = redis && ClockShim.unavailableReason().isEmpty() ? ShiftedClock.create() : null;
        single = !redis ? null : singleClock != null ? RedisProcess.start(singleClock) : RedisProcess.start();
        if (redis) {
            for (String process : Topology.processes()) {
                proxies.put(process, DelayProxy.start(single.port()));
            }
        }
        sentinel = redis ? RedisSentinelGroup.start() : null;
        // etcd's members elect a leader while PostgreSQL starts
        java.util.concurrent.CompletableFuture<EtcdServers> etcdStarting = redis ? null
                : java.util.concurrent.CompletableFuture.supplyAsync(() -> EtcdServers.start(Topology.processes()));
        try {
            postgresData = Files.createTempDirectory("fenceguard-proof-pg");
            postgresPort = RedisProcess.freePort();
            postgres = startPostgres();
            databases.add(new Topology.Database("postgresql", "postgresql", "jdbc:postgresql://127.0.0.1:"
                    + postgres.getPort() + "/postgres?socketTimeout=30&options=-c%20lock_timeout=15000", "postgres", ""));
            String maria = System.getenv("GUARD_TEST_MARIADB_URL");
            if (maria != null && !maria.isBlank()) {
                addMariaDb(maria.trim(), "proof_" + runId.replace('-', '_'));
            }
        } catch (IOException | SQLException | RuntimeException e) {
            if (etcdStarting != null) {
                etcdStarting.thenAccept(EtcdServers::close);
            }
            throw e;
        }
        if (etcdStarting != null) {
            etcd = etcdStarting.join();
        }
    }

    /** The etcd cluster of the run; throws when the run locks on Redis. */
    EtcdServers etcd() {
        if (etcd == null) {
            throw new IllegalStateException("this run has no etcd cluster (its locks are on Redis)");
        }
        return etcd;
    }

    /** Per client process, its links to the etcd members; empty when the run locks on Redis. */
    java.util.Map<String, List<String>> etcdEndpoints() {
        return etcd == null ? java.util.Map.of() : etcd.endpoints();
    }

    private EmbeddedPostgres startPostgres() throws IOException {
        return EmbeddedPostgres.builder().setPort(postgresPort).setDataDirectory(postgresData)
                .setCleanDataDirectory(false)
                .setServerConfig("max_connections", "200")
                .setServerConfig("synchronous_commit", "on").start();   // zonky turns it off; an ack must be durable
    }

    /** Stops PostgreSQL (fast shutdown: sessions are cut, committed work stays), waits, starts it again. */
    synchronized void restartPostgres(long downMillis) {
        try {
            postgres.close();
            sleep(downMillis);
            postgres = startPostgres();
        } catch (IOException e) {
            throw new IllegalStateException("PostgreSQL restart failed: " + e.getMessage(), e);
        }
    }

    /** Why the clock of the Redis server behind the proxy cannot be stepped, if it cannot. */
    Optional<String> clockUnavailable() {
        return singleClock != null ? Optional.empty()
                : Optional.of(ClockShim.unavailableReason().orElse("clock shim not loaded"));
    }

    /** Steps the clock of the Redis server behind the proxy by {@code step} (negative: back). */
    void stepClock(Duration step) {
        if (singleClock == null) {
            throw new IllegalStateException("no clock shim: " + clockUnavailable().orElse(""));
        }
        singleClock.shiftBy(step);
    }

    private void addMariaDb(String url, String database) throws SQLException {
        String user = System.getenv().getOrDefault("GUARD_TEST_MARIADB_USER", "root");
        String password = System.getenv().getOrDefault("GUARD_TEST_MARIADB_PASSWORD", "");
        try (Connection c = DriverManager.getConnection(url, user, password); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + database);
        }
        mariaAdminUrl = url;
        mariaDatabase = database;
        String server = url.substring(0, url.indexOf('/', "jdbc:mariadb://".length()));
        databases.add(new Topology.Database("mariadb", "mysql", server + "/" + database
                + "?sessionVariables=innodb_lock_wait_timeout=15&socketTimeout=30000", user, password));
    }

    List<Topology.Database> databases() {
        return databases;
    }

    RedisProcess single() {
        return redis(single);
    }

    private static <T> T redis(T server) {
        if (server == null) {
            throw new IllegalStateException("this run has no Redis server (its locks are on etcd)");
        }
        return server;
    }

    /** The sentinels' addresses; none when the run locks on etcd. */
    List<String> sentinelUris() {
        return sentinel == null ? List.of() : sentinel.sentinelUris();
    }

    /** The link of each client process to the single server. */
    java.util.Map<String, DelayProxy> proxies() {
        return proxies;
    }

    java.util.Map<String, String> redisUris() {
        java.util.Map<String, String> uris = new java.util.LinkedHashMap<>();
        proxies.forEach((process, proxy) -> uris.put(process, proxy.uri()));
        return uris;
    }

    RedisSentinelGroup sentinel() {
        return redis(sentinel);
    }

    /** The Sentinel group's current master process. */
    RedisProcess sentinelMaster() {
        RedisSentinelGroup sentinel = sentinel();
        return sentinel.currentMasterPort() == sentinel.master().port() ? sentinel.master() : sentinel.replica();
    }

    /**
     * Kills the current master, waits (bounded) until the sentinels promote the other node, then starts
     * the killed one again, empty; the sentinels make it a replica of the new master.
     */
    void failover() {
        RedisSentinelGroup sentinel = sentinel();
        RedisProcess old = sentinelMaster();
        RedisProcess next = old == sentinel.master() ? sentinel.replica() : sentinel.master();
        old.kill();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            try {
                if (sentinel.currentMasterPort() == next.port()
                        && String.valueOf(next.call("INFO", "replication")).contains("role:master")) {
                    break;
                }
            } catch (RuntimeException notYet) {
                // a sentinel is busy with the failover
            }
            sleep(100);
        }
        old.restart();
    }

    /** Brings back anything the nemesis left down. */
    void heal() {
        proxies.values().forEach(p -> p.delay(Duration.ZERO, Duration.ZERO));
        if (singleClock != null) {
            singleClock.set(Duration.ZERO);
        }
        if (single != null && !single.isAlive()) {
            single.restart();
        }
        if (sentinel != null) {
            for (RedisProcess node : List.of(sentinel.master(), sentinel.replica())) {
                if (!node.isAlive()) {
                    node.restart();
                }
            }
        }
        if (etcd != null) {
            etcd.heal();
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() throws IOException {
        if (etcd != null) {
            etcd.close();
        }
        proxies.values().forEach(DelayProxy::close);
        if (single != null) {
            single.close();
        }
        if (sentinel != null) {
            sentinel.close();
        }
        postgres.close();
        if (singleClock != null) {
            singleClock.close();
        }
        try (Stream<Path> files = Files.walk(postgresData)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
        if (mariaDatabase != null) {
            try (Connection c = DriverManager.getConnection(mariaAdminUrl,
                    System.getenv().getOrDefault("GUARD_TEST_MARIADB_USER", "root"),
                    System.getenv().getOrDefault("GUARD_TEST_MARIADB_PASSWORD", ""));
                 Statement s = c.createStatement()) {
                s.execute("DROP DATABASE " + mariaDatabase);
            } catch (SQLException e) {
                System.err.println("could not drop " + mariaDatabase + ": " + e.getMessage());
            }
        }
    }
}
