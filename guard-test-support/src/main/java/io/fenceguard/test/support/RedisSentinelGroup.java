package io.fenceguard.test.support;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A master, one replica and three sentinels on loopback ports, with fast failure detection. */
public final class RedisSentinelGroup implements AutoCloseable {

    public static final String MASTER_NAME = "fgmaster";

    private final RedisProcess master;
    private final RedisProcess replica;
    private final List<RedisProcess> sentinels;

    private RedisSentinelGroup(RedisProcess master, RedisProcess replica, List<RedisProcess> sentinels) {
        this.master = master;
        this.replica = replica;
        this.sentinels = sentinels;
    }

    public static RedisSentinelGroup start() {
        RedisProcess master = RedisProcess.start();
        RedisProcess replica = RedisProcess.start("--replicaof", "127.0.0.1", String.valueOf(master.port()));
        List<RedisProcess> sentinels = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            sentinels.add(RedisProcess.startSentinel(List.of(
                    "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + master.port() + " 2",
                    "sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
                    "sentinel failover-timeout " + MASTER_NAME + " 3000",
                    "sentinel parallel-syncs " + MASTER_NAME + " 1")));
        }
        RedisSentinelGroup group = new RedisSentinelGroup(master, replica, sentinels);
        group.awaitReplicaSeen();
        return group;
    }

    private void awaitReplicaSeen() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            boolean linked = String.valueOf(replica.call("INFO", "replication")).contains("master_link_status:up");
            boolean known = sentinels.stream().allMatch(s ->
                    !((List<?>) s.call("SENTINEL", "REPLICAS", MASTER_NAME)).isEmpty());
            if (linked && known) {
                return;
            }
            RedisProcess.sleep(100);
        }
        throw new IllegalStateException("sentinels did not discover the replica");
    }

    public RedisProcess master() {
        return master;
    }

    public RedisProcess replica() {
        return replica;
    }

    public List<String> sentinelUris() {
        return sentinels.stream().map(RedisProcess::uri).toList();
    }

    /** Port of the master the sentinels currently name. */
    public int currentMasterPort() {
        List<?> addr = (List<?>) sentinels.get(0).call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
        return Integer.parseInt(String.valueOf(addr.get(1)));
    }

    /** Kills the master and waits until the sentinels have promoted the replica. */
    public void killMasterAndAwaitFailover() {
        master.kill();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (currentMasterPort() == replica.port()
                    && String.valueOf(replica.call("INFO", "replication")).contains("role:master")) {
                return;
            }
            RedisProcess.sleep(100);
        }
        throw new IllegalStateException("no failover within 60 s");
    }

    @Override
    public void close() {
        sentinels.forEach(RedisProcess::close);
        replica.close();
        master.close();
    }
}
