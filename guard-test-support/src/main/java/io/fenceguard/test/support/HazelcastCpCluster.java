package io.fenceguard.test.support;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.config.cp.CPSubsystemConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.cp.lock.FencedLock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Three embedded Hazelcast members forming a CP group of three, in this JVM, on loopback ports of their own, with a
 * cluster name of their own (no multicast, no discovery beyond the listed ports). CP sessions last a few seconds,
 * so that a lost session shows within a test. Hazelcast is an optional dependency of this module: a test that
 * uses this class declares {@code com.hazelcast:hazelcast}.
 */
public final class HazelcastCpCluster implements AutoCloseable {

    /** The CP session's time to live without a heartbeat, and the heartbeat interval, in seconds. */
    public static final int SESSION_TTL_SECONDS = 6;
    public static final int HEARTBEAT_SECONDS = 1;

    private static HazelcastCpCluster shared;

    private final String name = "fenceguard-test-" + UUID.randomUUID();
    private final List<Integer> ports;
    private final List<HazelcastInstance> members = new ArrayList<>();

    private HazelcastCpCluster(int cpMembers, int extraMembers) {
        this.ports = freePorts(cpMembers + extraMembers);
        List<CompletableFuture<HazelcastInstance>> starting = new ArrayList<>();
        for (int i = 0; i < ports.size(); i++) {
            Config config = config(ports.get(i), cpMembers);
            // The CP members discover their group together: started at once, not one after another.
            starting.add(CompletableFuture.supplyAsync(() -> Hazelcast.newHazelcastInstance(config)));
        }
        for (CompletableFuture<HazelcastInstance> member : starting) {
            try {
                members.add(member.get(120, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                close();
                throw new IllegalStateException("interrupted while Hazelcast members " + name + " started", e);
            } catch (ExecutionException | TimeoutException e) {
                close();
                throw new IllegalStateException("Hazelcast members " + name + " did not start within 120 s", e);
            }
        }
        for (HazelcastInstance member : members) {
            try {
                member.getCPSubsystem().getCPSubsystemManagementService().awaitUntilDiscoveryCompleted(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                close();
                throw new IllegalStateException("interrupted while Hazelcast members " + name + " formed their CP group", e);
            }
        }
        // The first members to join form the CP group, whichever they are: the CP members first in the list.
        members.sort(Comparator.comparing(member -> member.getCPSubsystem().getLocalCPMember() == null));
        // Every member's CP session, and the group's leader, made before the tests count their time.
        for (HazelcastInstance member : members) {
            FencedLock warmUp = member.getCPSubsystem().getLock("fenceguard-warm-up");
            warmUp.lock();
            warmUp.unlock();
        }
    }

    /** Three CP members for every test class of this JVM, shut down when the JVM exits. */
    public static synchronized HazelcastCpCluster shared() {
        if (shared == null) {
            shared = start(0);
            Runtime.getRuntime().addShutdownHook(new Thread(shared::close));
        }
        return shared;
    }

    /** Three CP members, and {@code extraMembers} more that are not in the CP group (they use it as clients do). */
    public static HazelcastCpCluster start(int extraMembers) {
        return new HazelcastCpCluster(3, extraMembers);
    }

    /** The members: the three CP members first (0 to 2), then the others. */
    public HazelcastInstance member(int index) {
        return members.get(index);
    }

    public String name() {
        return name;
    }

    private Config config(int port, int cpMembers) {
        Config config = new Config();
        config.setClusterName(name);
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.logging.type", "slf4j");
        config.setProperty("hazelcast.wait.seconds.before.join", "0");
        config.setProperty("hazelcast.max.wait.seconds.before.join", "0");
        config.setProperty("hazelcast.graceful.shutdown.max.wait", "5");
        NetworkConfig network = config.getNetworkConfig();
        network.setPort(port).setPortAutoIncrement(false);
        network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true);
        for (int other : ports) {
            join.getTcpIpConfig().addMember("127.0.0.1:" + other);
        }
        CPSubsystemConfig cp = config.getCPSubsystemConfig();
        cp.setCPMemberCount(cpMembers);
        cp.setSessionTimeToLiveSeconds(SESSION_TTL_SECONDS);
        cp.setSessionHeartbeatIntervalSeconds(HEARTBEAT_SECONDS);
        return config;
    }

    private static List<Integer> freePorts(int count) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                sockets.add(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
            }
            return sockets.stream().map(ServerSocket::getLocalPort).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket socket : sockets) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // only held to keep the ports apart
                }
            }
        }
    }

    @Override
    public void close() {
        for (HazelcastInstance member : members) {
            member.getLifecycleService().terminate();
        }
    }
}
