package io.fenceguard.test.support;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Redis Cluster of {@code n} masters, each with as many replicas as asked (none by default), on loopback ports,
 * built from redis-server processes. Each node keeps its {@code nodes.conf} across {@link RedisProcess#restart()},
 * so a killed master that starts again rejoins the cluster (as a replica of the node promoted in its place).
 */
public final class RedisClusterProcesses implements AutoCloseable {

    private static final int SLOTS = 16384;
    private static final long NODE_TIMEOUT_MILLIS = 2000;
    private final List<RedisProcess> nodes;

    private RedisClusterProcesses(List<RedisProcess> nodes) {
        this.nodes = nodes;
    }

    public static RedisClusterProcesses start(int masters) {
        return start(masters, 0);
    }

    /** Starts {@code masters} masters and {@code replicasPerMaster} replicas of each; returns once every replica is in sync. */
    public static RedisClusterProcesses start(int masters, int replicasPerMaster) {
        if (masters < 1 || replicasPerMaster < 0) {
            throw new IllegalArgumentException("masters must be >= 1 and replicas >= 0, not " + masters + "/" + replicasPerMaster);
        }
        List<RedisProcess> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < masters * (1 + replicasPerMaster); i++) {
                nodes.add(RedisProcess.start("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                        "--cluster-node-timeout", String.valueOf(NODE_TIMEOUT_MILLIS)));
            }
            for (int i = 0; i < masters; i++) {
                int from = i * SLOTS / masters;
                int to = (i + 1) * SLOTS / masters;
                String[] args = new String[2 + to - from];
                args[0] = "CLUSTER";
                args[1] = "ADDSLOTS";
                for (int slot = from; slot < to; slot++) {
                    args[2 + slot - from] = String.valueOf(slot);
                }
                nodes.get(i).call(args);
            }
            for (int i = 1; i < nodes.size(); i++) {
                nodes.get(0).call("CLUSTER", "MEET", "127.0.0.1", String.valueOf(nodes.get(i).port()));
            }
            RedisClusterProcesses cluster = new RedisClusterProcesses(nodes);
            cluster.awaitState(nodes.size());
            for (int i = masters; i < nodes.size(); i++) {
                String masterId = String.valueOf(nodes.get((i - masters) % masters).call("CLUSTER", "MYID"));
                replicate(nodes.get(i), masterId);
            }
            cluster.awaitReplicasInSync(masters * replicasPerMaster);
            return cluster;
        } catch (RuntimeException e) {
            nodes.forEach(RedisProcess::close);
            throw e;
        }
    }

    /** CLUSTER REPLICATE, again until the node has heard of its master (gossip takes a moment). */
    private static void replicate(RedisProcess replica, String masterId) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                replica.call("CLUSTER", "REPLICATE", masterId);
                return;
            } catch (RuntimeException notKnownYet) {
                if (System.nanoTime() > deadline) {
                    throw notKnownYet;
                }
                RedisProcess.sleep(100);
            }
        }
    }

    private void awaitState(int known) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            boolean ok = nodes.stream().allMatch(n ->
                    String.valueOf(n.call("CLUSTER", "INFO")).contains("cluster_state:ok")
                            && String.valueOf(n.call("CLUSTER", "NODES")).lines().count() == known);
            if (ok) {
                return;
            }
            RedisProcess.sleep(100);
        }
        throw new IllegalStateException("cluster did not reach cluster_state:ok");
    }

    private void awaitReplicasInSync(int replicas) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            long inSync = nodes.stream().filter(RedisProcess::isAlive)
                    .filter(n -> String.valueOf(n.call("INFO", "replication")).contains("master_link_status:up"))
                    .count();
            if (inSync >= replicas) {
                return;
            }
            RedisProcess.sleep(100);
        }
        throw new IllegalStateException("the replicas did not reach their masters (master_link_status:up)");
    }

    public List<RedisProcess> nodes() {
        return nodes;
    }

    /** The nodes that are running and master now (a promoted replica is one). */
    public List<RedisProcess> masters() {
        return nodes.stream().filter(RedisProcess::isAlive)
                .filter(n -> String.valueOf(n.call("INFO", "replication")).contains("role:master")).toList();
    }

    /**
     * Kills {@code master} (SIGKILL) and waits until one of its replicas has taken over its slots and the
     * cluster answers {@code cluster_state:ok} again; then starts the killed node again, which rejoins as a replica.
     * Returns the promoted node.
     */
    public RedisProcess killMasterAndAwaitPromotion(RedisProcess master) {
        String masterId = String.valueOf(master.call("CLUSTER", "MYID"));
        List<RedisProcess> replicas = nodes.stream().filter(n -> n != master && n.isAlive())
                .filter(n -> String.valueOf(n.call("CLUSTER", "NODES")).lines()
                        .anyMatch(line -> line.contains("myself") && line.contains("slave " + masterId))).toList();
        if (replicas.isEmpty()) {
            throw new IllegalStateException("master on port " + master.port() + " has no replica to promote");
        }
        master.kill();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            for (RedisProcess replica : replicas) {
                if (String.valueOf(replica.call("INFO", "replication")).contains("role:master")
                        && String.valueOf(replica.call("CLUSTER", "INFO")).contains("cluster_state:ok")) {
                    master.restart();
                    awaitReplicasInSync(nodes.size() - masters().size());
                    return replica;
                }
            }
            RedisProcess.sleep(100);
        }
        throw new IllegalStateException("no replica of the master on port " + master.port() + " was promoted in 30 s");
    }

    /** Node addresses in the form Redisson's cluster configuration expects. */
    public List<String> uris() {
        return nodes.stream().map(RedisProcess::uri).toList();
    }

    /** {@code host:port,…}, as {@code spring.data.redis.cluster.nodes} takes them. */
    public String hostPorts() {
        return String.join(",", nodes.stream().map(n -> "127.0.0.1:" + n.port()).toList());
    }

    @Override
    public void close() {
        nodes.forEach(RedisProcess::close);
    }
}
