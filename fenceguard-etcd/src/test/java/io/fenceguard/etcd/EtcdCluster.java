package io.fenceguard.etcd;

import io.etcd.jetcd.Client;
import io.fenceguard.testsupport.RedisProcess;
import java.io.File;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A real etcd cluster of {@code n} members on free loopback ports, each its own {@code etcd} process with a data
 * directory of its own, so that tests can kill a member or the leader. The binary is {@code GUARD_TEST_ETCD_BINARY}
 * or {@code etcd} on the PATH (Debian's {@code etcd-server}); without one, the tests that need it are skipped.
 */
public final class EtcdCluster implements AutoCloseable {

    private final List<Member> members = new ArrayList<>();
    private final Path dir;

    private record Member(String name, int clientPort, int peerPort, Path data, Process[] process) {
        String clientUrl() {
            return "http://127.0.0.1:" + clientPort;
        }

        String peerUrl() {
            return "http://127.0.0.1:" + peerPort;
        }
    }

    private EtcdCluster(Path dir) {
        this.dir = dir;
    }

    public static EtcdCluster start(int n) {
        String binary = binary();
        Assumptions.assumeTrue(binary != null, "no etcd binary: install Debian's etcd-server or set GUARD_TEST_ETCD_BINARY");
        try {
            // On tmpfs where there is one: every write is fsynced by each member, which a loaded disk makes slow.
            Path shm = Path.of("/dev/shm");
            Path dir = Files.isDirectory(shm) && Files.isWritable(shm)
                    ? Files.createTempDirectory(shm, "fenceguard-etcd") : Files.createTempDirectory("fenceguard-etcd");
            EtcdCluster cluster = new EtcdCluster(dir);
            for (int i = 1; i <= n; i++) {
                cluster.members.add(new Member("m" + i, RedisProcess.freePort(), RedisProcess.freePort(),
                        cluster.dir.resolve("m" + i), new Process[1]));
            }
            for (Member m : cluster.members) {
                cluster.launch(binary, m, "new");
            }
            for (Member m : cluster.members) {
                awaitPort(m.clientPort(), Duration.ofSeconds(20));
            }
            return cluster;
        } catch (IOException e) {
            throw new IllegalStateException("could not start etcd", e);
        }
    }

    private static String binary() {
        String configured = System.getenv("GUARD_TEST_ETCD_BINARY");
        if (configured != null && !configured.isBlank()) {
            return configured;
        }
        for (String path : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            File candidate = new File(path, "etcd");
            if (candidate.canExecute()) {
                return candidate.getAbsolutePath();
            }
        }
        return null;
    }

    private void launch(String binary, Member m, String state) throws IOException {
        String initial = members.stream().map(x -> x.name() + "=" + x.peerUrl()).collect(Collectors.joining(","));
        ProcessBuilder builder = new ProcessBuilder(binary, "--name", m.name(), "--data-dir", m.data().toString(),
                "--listen-client-urls", m.clientUrl(), "--advertise-client-urls", m.clientUrl(),
                "--listen-peer-urls", m.peerUrl(), "--initial-advertise-peer-urls", m.peerUrl(),
                "--initial-cluster", initial, "--initial-cluster-state", state,
                "--initial-cluster-token", dir.getFileName().toString(),
                "--heartbeat-interval", "100", "--election-timeout", "1000", "--log-level", "error")
                .redirectErrorStream(true).redirectOutput(dir.resolve(m.name() + ".log").toFile());
        m.process()[0] = builder.start();
    }

    /** Every member's client URL. */
    public String endpoints() {
        return members.stream().map(Member::clientUrl).collect(Collectors.joining(","));
    }

    private static EtcdCluster shared;
    private static Client sharedClient;

    /**
     * One three-member cluster and client for the tests of a JVM that neither kill nor pause members (the contract
     * suites); stopped when the JVM ends. Fault tests start a cluster of their own.
     */
    public static synchronized Client sharedClient() {
        if (sharedClient == null) {
            shared = start(3);
            sharedClient = shared.client();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                sharedClient.close();
                shared.close();
            }, "etcd-test-cluster-stop"));
        }
        return sharedClient;
    }

    /** Calls that wait for a loaded test machine; production keeps the default. */
    public static final EtcdLeaseConfig CONFIG = new EtcdLeaseConfig(EtcdLeaseConfig.DEFAULT_KEY_PREFIX, Duration.ofSeconds(5));

    public Client client() {
        return Client.builder().endpoints(members.stream().map(Member::clientUrl).toArray(String[]::new)).build();
    }

    /** A client of one member only. */
    Client clientOf(int member) {
        return Client.builder().endpoints(members.get(member).clientUrl()).build();
    }

    /** The index of the current leader, as the members' status tells. */
    int leader() {
        try (Client client = client()) {
            for (int i = 0; i < members.size(); i++) {
                if (!isRunning(i)) {
                    continue;
                }
                var status = client.getMaintenanceClient().statusMember(members.get(i).clientUrl()).get(5, TimeUnit.SECONDS);
                if (status.getLeader() == status.getHeader().getMemberId()) {
                    return i;
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("could not find the etcd leader", e);
        }
        throw new IllegalStateException("no etcd member is the leader");
    }

    boolean isRunning(int member) {
        Process p = members.get(member).process()[0];
        return p != null && p.isAlive();
    }

    /** Kills a member at once (SIGKILL). */
    void kill(int member) {
        Process p = members.get(member).process()[0];
        p.destroyForcibly();
        try {
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Starts a killed member again on its data directory. */
    void restart(int member) {
        try {
            launch(binary(), members.get(member), "existing");
            awaitPort(members.get(member).clientPort(), Duration.ofSeconds(20));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void awaitPort(int port, Duration within) {
        long until = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < until) {
            try (Socket ignored = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException e) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
        throw new IllegalStateException("etcd did not listen on " + port + " within " + within);
    }

    @Override
    public void close() {
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
