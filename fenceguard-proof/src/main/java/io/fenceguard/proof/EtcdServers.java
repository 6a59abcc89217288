package io.fenceguard.proof;

import io.etcd.jetcd.Client;
import io.fenceguard.testsupport.RedisProcess;
import io.fenceguard.testsupport.faults.DelayProxy;
import java.io.File;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A three-member etcd cluster of a run, each member its own {@code etcd} process (Debian's {@code etcd-server},
 * or {@code GUARD_TEST_ETCD_BINARY}) with a data directory of its own on free loopback ports, and in front of
 * every member a {@link DelayProxy} per client process: a process reaches the cluster only through its own
 * links, so that the nemesis can cut one process (a holder) off from etcd while the others go on.
 */
final class EtcdServers implements AutoCloseable {

    private static final int MEMBERS = 3;

    private record Member(String name, int clientPort, int peerPort, Path data, Process[] process) {
        String clientUrl() {
            return "http://127.0.0.1:" + clientPort;
        }

        String peerUrl() {
            return "http://127.0.0.1:" + peerPort;
        }
    }

    private final String binary;
    private final Path dir;
    private final List<Member> members = new ArrayList<>();
    /** Per client process, its link to each member, in member order. */
    private final Map<String, List<DelayProxy>> links = new LinkedHashMap<>();

    private EtcdServers(String binary, Path dir) {
        this.binary = binary;
        this.dir = dir;
    }

    /** The etcd binary: {@code GUARD_TEST_ETCD_BINARY}, else {@code etcd} on the PATH. */
    static Optional<String> binary() {
        String configured = System.getenv("GUARD_TEST_ETCD_BINARY");
        if (configured != null && !configured.isBlank()) {
            return Optional.of(configured.trim());
        }
        for (String path : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            File candidate = new File(path, "etcd");
            if (!path.isBlank() && candidate.canExecute()) {
                return Optional.of(candidate.getAbsolutePath());
            }
        }
        return Optional.empty();
    }

    /** Why the etcd rows cannot run here, if they cannot. */
    static Optional<String> unavailableReason() {
        return binary().isPresent() ? Optional.empty()
                : Optional.of("no etcd binary (install Debian's etcd-server or set GUARD_TEST_ETCD_BINARY)");
    }

    static EtcdServers start(List<String> processes) throws IOException {
        String binary = binary().orElseThrow(() -> new IllegalStateException(unavailableReason().orElseThrow()));
        // On tmpfs where there is one: every member fsyncs every write, which a loaded disk makes slow.
        Path shm = Path.of("/dev/shm");
        Path dir = Files.isDirectory(shm) && Files.isWritable(shm)
                ? Files.createTempDirectory(shm, "fenceguard-proof-etcd") : Files.createTempDirectory("fenceguard-proof-etcd");
        EtcdServers servers = new EtcdServers(binary, dir);
        try {
            for (int i = 1; i <= MEMBERS; i++) {
                servers.members.add(new Member("m" + i, RedisProcess.freePort(), RedisProcess.freePort(),
                        dir.resolve("m" + i), new Process[1]));
            }
            for (Member m : servers.members) {
                servers.launch(m, "new");
            }
            for (Member m : servers.members) {
                awaitPort(m.clientPort(), Duration.ofSeconds(20));
            }
            for (String process : processes) {
                servers.links.put(process, servers.members.stream().map(m -> DelayProxy.start(m.clientPort())).toList());
            }
            return servers;
        } catch (RuntimeException | IOException e) {
            servers.close();
            throw e;
        }
    }

    private void launch(Member m, String state) throws IOException {
        String initial = members.stream().map(x -> x.name() + "=" + x.peerUrl()).collect(Collectors.joining(","));
        // Elections as in fenceguard-etcd's tests: heartbeats every 100 ms, a leader presumed dead after 1 s.
        ProcessBuilder builder = new ProcessBuilder(binary, "--name", m.name(), "--data-dir", m.data().toString(),
                "--listen-client-urls", m.clientUrl(), "--advertise-client-urls", m.clientUrl(),
                "--listen-peer-urls", m.peerUrl(), "--initial-advertise-peer-urls", m.peerUrl(),
                "--initial-cluster", initial, "--initial-cluster-state", state,
                "--initial-cluster-token", dir.getFileName().toString(),
                "--heartbeat-interval", "100", "--election-timeout", "1000", "--log-level", "error")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(m.name() + ".log").toFile()));
        m.process()[0] = builder.start();
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
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        RuntimeException last = null;
        while (System.nanoTime() < until) {
            try (Client client = Client.builder().endpoints(members.stream().filter(m -> isRunning(m))
                    .map(Member::clientUrl).toArray(String[]::new)).build()) {
                for (int i = 0; i < members.size(); i++) {
                    if (!isRunning(members.get(i))) {
                        continue;
                    }
                    var status = client.getMaintenanceClient().statusMember(members.get(i).clientUrl())
                            .get(2, TimeUnit.SECONDS);
                    if (status.getLeader() == status.getHeader().getMemberId()) {
                        return i;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while looking for the etcd leader", e);
            } catch (Exception e) {
                last = new IllegalStateException("no etcd leader: " + e.getMessage(), e);
            }
            ProofServers.sleep(100);
        }
        throw last != null ? last : new IllegalStateException("no etcd member is the leader");
    }

    private static boolean isRunning(Member m) {
        return m.process()[0] != null && m.process()[0].isAlive();
    }

    /** SIGKILL of a member: no goodbye to its peers, whatever it had not yet sent is lost. */
    void kill(int member) {
        Process p = members.get(member).process()[0];
        p.destroyForcibly();
        try {
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Starts a killed member again on its data directory; it rejoins as a follower. */
    void restart(int member) {
        try {
            launch(members.get(member), "existing");
            awaitPort(members.get(member).clientPort(), Duration.ofSeconds(20));
        } catch (IOException e) {
            throw new IllegalStateException("etcd member " + members.get(member).name() + " did not start again", e);
        }
    }

    /** Restarts killed members and heals every link. */
    void heal() {
        links.values().forEach(proxies -> proxies.forEach(p -> p.delay(Duration.ZERO, Duration.ZERO)));
        for (int i = 0; i < members.size(); i++) {
            if (!isRunning(members.get(i))) {
                restart(i);
            }
        }
    }

    String name(int member) {
        return members.get(member).name();
    }

    private static void awaitPort(int port, Duration within) {
        long until = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < until) {
            try (Socket ignored = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException e) {
                ProofServers.sleep(50);
            }
        }
        throw new IllegalStateException("etcd did not listen on " + port + " within " + within);
    }

    @Override
    public void close() {
        links.values().forEach(proxies -> proxies.forEach(DelayProxy::close));
        for (Member m : members) {
            if (m.process()[0] != null) {
                m.process()[0].destroyForcibly();
            }
        }
        for (Member m : members) {
            try {
                if (m.process()[0] != null) {
                    m.process()[0].waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException e) {
            // temporary files only
        }
    }
}
