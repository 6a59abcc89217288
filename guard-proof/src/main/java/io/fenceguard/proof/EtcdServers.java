package io.fenceguard.proof;

import io.fenceguard.test.support.EtcdProcesses;
import io.fenceguard.test.support.faults.DelayProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A three-member etcd cluster of a run ({@link EtcdProcesses}: each member its own {@code etcd} process), and in
 * front of every member a {@link DelayProxy} per client process: a process reaches the cluster only through its own
 * links, so that the nemesis can cut one process (a holder) off from etcd while the others go on.
 */
final class EtcdServers implements AutoCloseable {

    private static final int MEMBERS = 3;

    private final EtcdProcesses members;
    /** Per client process, its link to each member, in member order. */
    private final Map<String, List<DelayProxy>> links = new LinkedHashMap<>();

    private EtcdServers(EtcdProcesses members) {
        this.members = members;
    }

    /** Why the etcd rows cannot run here, if they cannot. */
    static Optional<String> unavailableReason() {
        return EtcdProcesses.unavailableReason();
    }

    static EtcdServers start(List<String> processes) {
        EtcdServers servers = new EtcdServers(EtcdProcesses.start(MEMBERS));
        try {
            for (String process : processes) {
                List<DelayProxy> proxies = new ArrayList<>();
                servers.links.put(process, proxies);
                for (int i = 0; i < MEMBERS; i++) {
                    proxies.add(DelayProxy.start(servers.members.clientPort(i)));
                }
            }
            return servers;
        } catch (RuntimeException e) {
            servers.close();
            throw e;
        }
    }

    /** The endpoints through which {@code process} reaches the members. */
    Map<String, List<String>> endpoints() {
        Map<String, List<String>> endpoints = new LinkedHashMap<>();
        links.forEach((process, proxies) -> endpoints.put(process,
                proxies.stream().map(p -> "http://127.0.0.1:" + p.port()).toList()));
        return endpoints;
    }

    /** The links of one client process to every member. */
    List<DelayProxy> linksOf(String process) {
        return links.get(process);
    }

    List<String> processes() {
        return List.copyOf(links.keySet());
    }

    /** The member that is the leader now, as the members' status tells (waits up to 10 s for one). */
    int leader() {
        return members.leader(Duration.ofSeconds(10));
    }

    /** SIGKILL of a member: no goodbye to its peers, whatever it had not yet sent is lost. */
    void kill(int member) {
        members.kill(member);
    }

    /** Starts a killed member again on its data directory; it rejoins as a follower. */
    void restart(int member) {
        members.restart(member);
    }

    /** Restarts killed members and heals every link. */
    void heal() {
        links.values().forEach(proxies -> proxies.forEach(p -> p.delay(Duration.ZERO, Duration.ZERO)));
        for (int i = 0; i < members.size(); i++) {
            if (!members.isRunning(i)) {
                restart(i);
            }
        }
    }

    String name(int member) {
        return members.name(member);
    }

    @Override
    public void close() {
        links.values().forEach(proxies -> proxies.forEach(DelayProxy::close));
        members.close();
    }
}
