package io.fenceguard.autoconfigure.hazelcast;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Three embedded Hazelcast members forming a CP group, on free loopback ports, with a cluster name of their own. */
final class HazelcastCpMembers implements AutoCloseable {

    private final List<HazelcastInstance> members = new ArrayList<>();

    private HazelcastCpMembers() throws Exception {
        String name = "fenceguard-boot-test-" + UUID.randomUUID();
        List<Integer> ports = freePorts(3);
        List<CompletableFuture<HazelcastInstance>> starting = new ArrayList<>();
        for (int port : ports) {
            Config config = new Config();
            config.setClusterName(name);
            config.setProperty("hazelcast.phone.home.enabled", "false");
            config.setProperty("hazelcast.logging.type", "none");
            config.setProperty("hazelcast.wait.seconds.before.join", "0");
            config.setProperty("hazelcast.max.wait.seconds.before.join", "0");
            config.getNetworkConfig().setPort(port).setPortAutoIncrement(false);
            config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
            JoinConfig join = config.getNetworkConfig().getJoin();
            join.getMulticastConfig().setEnabled(false);
            join.getAutoDetectionConfig().setEnabled(false);
            join.getTcpIpConfig().setEnabled(true);
            ports.forEach(other -> join.getTcpIpConfig().addMember("127.0.0.1:" + other));
            config.getCPSubsystemConfig().setCPMemberCount(3).setSessionTimeToLiveSeconds(6)
                    .setSessionHeartbeatIntervalSeconds(1);
            // Started together: the CP members discover their group together.
            starting.add(CompletableFuture.supplyAsync(() -> Hazelcast.newHazelcastInstance(config)));
        }
        for (CompletableFuture<HazelcastInstance> member : starting) {
            members.add(member.get(120, TimeUnit.SECONDS));
        }
        for (HazelcastInstance member : members) {
            member.getCPSubsystem().getCPSubsystemManagementService().awaitUntilDiscoveryCompleted(60, TimeUnit.SECONDS);
        }
    }

    static HazelcastCpMembers start() throws Exception {
        return new HazelcastCpMembers();
    }

    HazelcastInstance member(int index) {
        return members.get(index);
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
        members.forEach(member -> member.getLifecycleService().terminate());
    }
}
