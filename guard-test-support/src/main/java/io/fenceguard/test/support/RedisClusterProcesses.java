package io.fenceguard.test.support;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A Redis Cluster of {@code n} masters (no replicas) on loopback ports, built from redis-server processes. */
public final class RedisClusterProcesses implements AutoCloseable {

    private static final int SLOTS = 16384;
    private final List<RedisProcess> nodes;

    private RedisClusterProcesses(List<RedisProcess> nodes) {
        this.nodes = nodes;
    }

    public static RedisClusterProcesses start(int masters) {
        List<RedisProcess> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < masters; i++) {
                nodes.add(RedisProcess.start("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                        "--cluster-node-timeout", "2000"));
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
            for (int i = 1; i < masters; i++) {
                nodes.get(0).call("CLUSTER", "MEET", "127.0.0.1", String.valueOf(nodes.get(i).port()));
            }
            RedisClusterProcesses cluster = new RedisClusterProcesses(nodes);
            cluster.awaitState();
            return cluster;
        } catch (RuntimeException e) {
            nodes.forEach(RedisProcess::close);
            throw e;
        }
    }

    private void awaitState() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            boolean ok = nodes.stream().allMatch(n ->
                    String.valueOf(n.call("CLUSTER", "INFO")).contains("cluster_state:ok")
                            && String.valueOf(n.call("CLUSTER", "NODES")).lines().count() == nodes.size());
            if (ok) {
                return;
            }
            RedisProcess.sleep(100);
        }
        throw new IllegalStateException("cluster did not reach cluster_state:ok");
    }

    public List<RedisProcess> nodes() {
        return nodes;
    }

    /** Node addresses in the form Redisson's cluster configuration expects. */
    public List<String> uris() {
        return nodes.stream().map(RedisProcess::uri).toList();
    }

    @Override
    public void close() {
        nodes.forEach(RedisProcess::close);
    }
}
