package io.fenceguard.test.support;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A real etcd cluster of {@code n} members on free loopback ports, each its own {@code etcd} process with a data
 * directory of its own, so that tests can kill a member or the leader and start it again. The binary is
 * {@code GUARD_TEST_ETCD_BINARY} or {@code etcd} on the PATH (Debian's {@code etcd-server}). No etcd client library
 * is needed: the leader is read from each member's JSON gateway.
 */
public final class EtcdProcesses implements AutoCloseable {

    private static final String MISSING = "no etcd binary (install Debian's etcd-server or set GUARD_TEST_ETCD_BINARY)";
    private static final Pattern MEMBER_ID = Pattern.compile("\"member_id\"\\s*:\\s*\"?(\\d+)");
    private static final Pattern LEADER = Pattern.compile("\"leader\"\\s*:\\s*\"?(\\d+)");

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

    private EtcdProcesses(String binary, Path dir) {
        this.binary = binary;
        this.dir = dir;
    }

    /** The etcd binary: {@code GUARD_TEST_ETCD_BINARY}, else {@code etcd} on the PATH. */
    public static Optional<String> binary() {
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

    /** Why no etcd can start here, if none can. */
    public static Optional<String> unavailableReason() {
        return binary().isPresent() ? Optional.empty() : Optional.of(MISSING);
    }

    /** Skips the calling test when there is no etcd binary. */
    public static void assumeAvailable() {
        Assumptions.assumeTrue(binary().isPresent(), MISSING);
    }

    /**
     * Starts {@code n} members and waits until each listens for clients (20 s each).
     *
     * @throws IllegalStateException when there is no etcd binary, or a member does not start
     */
    public static EtcdProcesses start(int n) {
        String binary = binary().orElseThrow(() -> new IllegalStateException(MISSING));
        // A free port can be taken by another process between its choice and etcd's bind (parallel builds start
        // servers too): a member that exits before it listens is started again, with the cluster, on other ports.
        for (int attempt = 1; ; attempt++) {
            try {
                return start(binary, n);
            } catch (MemberExited e) {
                if (attempt == 3) {
                    throw e;
                }
            }
        }
    }

    /** A member that exited before it listened for clients. */
    private static final class MemberExited extends IllegalStateException {
        MemberExited(String message) {
            super(message);
        }
    }

    private static EtcdProcesses start(String binary, int n) {
        Path dir;
        try {
            // On tmpfs where there is one: every member fsyncs every write, which a loaded disk makes slow.
            Path shm = Path.of("/dev/shm");
            dir = Files.isDirectory(shm) && Files.isWritable(shm)
                    ? Files.createTempDirectory(shm, "fenceguard-etcd") : Files.createTempDirectory("fenceguard-etcd");
        } catch (IOException e) {
            throw new IllegalStateException("could not create a data directory for etcd", e);
        }
        EtcdProcesses cluster = new EtcdProcesses(binary, dir);
        try {
            for (int i = 1; i <= n; i++) {
                cluster.members.add(new Member("m" + i, RedisProcess.freePort(), RedisProcess.freePort(),
                        dir.resolve("m" + i), new Process[1]));
            }
            for (Member m : cluster.members) {
                cluster.launch(m, "new");
            }
            for (Member m : cluster.members) {
                cluster.awaitClients(m);
            }
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    private void launch(Member m, String state) {
        String initial = members.stream().map(x -> x.name() + "=" + x.peerUrl()).collect(Collectors.joining(","));
        // Heartbeats every 100 ms, a leader presumed dead after 1 s: failovers within a test's time.
        ProcessBuilder builder = new ProcessBuilder(binary, "--name", m.name(), "--data-dir", m.data().toString(),
                "--listen-client-urls", m.clientUrl(), "--advertise-client-urls", m.clientUrl(),
                "--listen-peer-urls", m.peerUrl(), "--initial-advertise-peer-urls", m.peerUrl(),
                "--initial-cluster", initial, "--initial-cluster-state", state,
                "--initial-cluster-token", dir.getFileName().toString(),
                "--heartbeat-interval", "100", "--election-timeout", "1000", "--log-level", "error")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(m.name() + ".log").toFile()));
        try {
            m.process()[0] = builder.start();
        } catch (IOException e) {
            throw new IllegalStateException("etcd member " + m.name() + " did not start (" + binary + ")", e);
        }
    }

    public int size() {
        return members.size();
    }

    /** The member's name, as its peers know it. */
    public String name(int member) {
        return members.get(member).name();
    }

    public int clientPort(int member) {
        return members.get(member).clientPort();
    }

    public String clientUrl(int member) {
        return members.get(member).clientUrl();
    }

    /** Every member's client URL, in member order. */
    public List<String> clientUrls() {
        return members.stream().map(Member::clientUrl).toList();
    }

    /** Every member's client URL, separated by commas. */
    public String endpoints() {
        return String.join(",", clientUrls());
    }

    public boolean isRunning(int member) {
        Process p = members.get(member).process()[0];
        return p != null && p.isAlive();
    }

    /** SIGKILL of a member: no goodbye to its peers, whatever it had not yet sent is lost. */
    public void kill(int member) {
        Process p = members.get(member).process()[0];
        p.destroyForcibly();
        try {
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Starts a killed member again on its data directory; it rejoins as a follower. */
    public void restart(int member) {
        Member m = members.get(member);
        launch(m, "existing");
        awaitClients(m);
    }

    /**
     * The index of the member that is the leader now, as the running members' status tells; waits up to
     * {@code within} for one.
     *
     * @throws IllegalStateException when no running member is the leader within that time
     */
    public int leader(Duration within) {
        long until = System.nanoTime() + within.toNanos();
        String last = "no member running";
        while (true) {
            for (int i = 0; i < members.size(); i++) {
                if (!isRunning(i)) {
                    continue;
                }
                try {
                    String status = status(members.get(i));
                    String self = find(MEMBER_ID, status);
                    String leader = find(LEADER, status);
                    if (self != null && self.equals(leader)) {
                        return i;
                    }
                    last = members.get(i).name() + " follows " + leader;
                } catch (IOException e) {
                    last = members.get(i).name() + ": " + e.getMessage();
                }
            }
            if (System.nanoTime() - until > 0) {
                throw new IllegalStateException("no etcd member is the leader within " + within + " (" + last + ")");
            }
            sleep(100);
        }
    }

    private static String status(Member m) throws IOException {
        HttpURLConnection connection = (HttpURLConnection) URI.create(m.clientUrl() + "/v3/maintenance/status")
                .toURL().openConnection();
        connection.setConnectTimeout(2000);
        connection.setReadTimeout(2000);
        connection.setRequestMethod("POST");
        connection.setDoOutput(true);
        try (OutputStream out = connection.getOutputStream()) {
            out.write("{}".getBytes(StandardCharsets.US_ASCII));
        }
        try (InputStream in = connection.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            connection.disconnect();
        }
    }

    private static String find(Pattern pattern, String json) {
        Matcher matcher = pattern.matcher(json);
        return matcher.find() ? matcher.group(1) : null;
    }

    private void awaitClients(Member m) {
        Duration within = Duration.ofSeconds(20);
        long until = System.nanoTime() + within.toNanos();
        while (true) {
            try (Socket ignored = new Socket("127.0.0.1", m.clientPort())) {
                return;
            } catch (IOException notYet) {
                if (!isRunning(members.indexOf(m))) {
                    throw new MemberExited("etcd member " + m.name() + " exited before it listened on "
                            + m.clientUrl() + ": " + logTail(m));
                }
                if (System.nanoTime() - until > 0) {
                    throw new IllegalStateException("etcd member " + m.name() + " did not listen on " + m.clientUrl()
                            + " within " + within + "; see " + dir.resolve(m.name() + ".log"));
                }
                sleep(50);
            }
        }
    }

    /** The end of the member's log, for the message: the cluster's directory is deleted when it is closed. */
    private String logTail(Member m) {
        try {
            String log = Files.readString(dir.resolve(m.name() + ".log"));
            return log.length() > 500 ? log.substring(log.length() - 500) : log;
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for etcd", e);
        }
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
