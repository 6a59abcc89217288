package io.fenceguard.autoconfigure.etcd;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * One etcd member on free loopback ports with a data directory of its own, from {@code GUARD_TEST_ETCD_BINARY} or
 * {@code etcd} on the PATH (Debian's {@code etcd-server}); without a binary, the tests that need it are skipped.
 */
final class EtcdProcess implements AutoCloseable {

    private final Process process;
    private final Path dir;
    private final String clientUrl;

    private EtcdProcess(Process process, Path dir, String clientUrl) {
        this.process = process;
        this.dir = dir;
        this.clientUrl = clientUrl;
    }

    static EtcdProcess start() throws IOException, InterruptedException {
        String binary = binary();
        Assumptions.assumeTrue(binary != null, "no etcd binary: install Debian's etcd-server or set GUARD_TEST_ETCD_BINARY");
        Path shm = Path.of("/dev/shm");
        Path dir = Files.isDirectory(shm) && Files.isWritable(shm)
                ? Files.createTempDirectory(shm, "fenceguard-boot-etcd") : Files.createTempDirectory("fenceguard-boot-etcd");
        int clientPort = freePort();
        String clientUrl = "http://127.0.0.1:" + clientPort;
        String peerUrl = "http://127.0.0.1:" + freePort();
        Process process = new ProcessBuilder(binary, "--name", "boot", "--data-dir", dir.resolve("data").toString(),
                "--listen-client-urls", clientUrl, "--advertise-client-urls", clientUrl,
                "--listen-peer-urls", peerUrl, "--initial-advertise-peer-urls", peerUrl,
                "--initial-cluster", "boot=" + peerUrl, "--log-level", "error")
                .redirectErrorStream(true).redirectOutput(dir.resolve("etcd.log").toFile()).start();
        EtcdProcess etcd = new EtcdProcess(process, dir, clientUrl);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try (Socket ignored = new Socket("127.0.0.1", clientPort)) {
                return etcd;
            } catch (IOException notYet) {
                if (!process.isAlive() || System.nanoTime() - end > 0) {
                    etcd.close();
                    throw new IllegalStateException("etcd did not listen on " + clientUrl + "; see " + dir.resolve("etcd.log"));
                }
                Thread.sleep(50);
            }
        }
    }

    String clientUrl() {
        return clientUrl;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory left behind
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

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
