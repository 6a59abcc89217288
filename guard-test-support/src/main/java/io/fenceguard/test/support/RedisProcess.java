package io.fenceguard.test.support;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import io.fenceguard.test.support.faults.ShiftedClock;
import redis.embedded.core.ExecutableProvider;

/**
 * A {@code redis-server} process of the test's own on a free loopback port, with no persistence, so a
 * fault test can kill it, flush it and start it again on the same port.
 * The binary is {@code $GUARD_REDIS_SERVER}, else {@code redis-server} on the PATH, else the one
 * shipped in the embedded-redis jar.
 */
public final class RedisProcess implements AutoCloseable {

    private final int port;
    private final Path dir;
    private final List<String> extraArgs;
    private final Map<String, String> environment = new HashMap<>();
    private Process process;
    private List<String> lastModeArgs = List.of();
    private String binary;

    private RedisProcess(int port, Path dir, List<String> extraArgs) {
        this.port = port;
        this.dir = dir;
        this.extraArgs = extraArgs;
    }

    /** Starts a plain server; {@code extraArgs} are redis-server options such as {@code --replicaof}. */
    public static RedisProcess start(String... extraArgs) {
        RedisProcess p = create(freePort(), extraArgs);
        p.startProcess(List.of());
        return p;
    }

    /**
     * Starts a plain server whose wall clock is {@code clock}'s (an LD_PRELOAD shim), so the test can step
     * it forward and back while the server runs; {@code TIME}, key expiry and Lua's {@code TIME} follow.
     * Call {@link io.fenceguard.test.support.faults.ClockShim#assumeAvailable()} first.
     */
    public static RedisProcess start(ShiftedClock clock, String... extraArgs) {
        RedisProcess p = create(freePort(), extraArgs);
        p.environment.putAll(clock.environment());
        p.startProcess(List.of());
        return p;
    }

    /** Starts the redis-server binary shipped in the embedded-redis jar from Maven, whatever the PATH has. */
    public static RedisProcess startEmbedded() {
        RedisProcess p = create(freePort());
        p.binary = bundledExecutable();
        p.startProcess(List.of());
        return p;
    }

    /** Starts a sentinel whose configuration file holds {@code configLines}. */
    public static RedisProcess startSentinel(List<String> configLines) {
        RedisProcess p = create(freePort());
        List<String> lines = new ArrayList<>();
        lines.add("port " + p.port);
        lines.add("bind 127.0.0.1");
        lines.add("dir " + p.dir);
        lines.addAll(configLines);
        Path conf = p.dir.resolve("sentinel.conf");
        try {
            Files.write(conf, lines);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        p.startProcess(List.of(conf.toString(), "--sentinel"));
        return p;
    }

    private static RedisProcess create(int port, String... extraArgs) {
        try {
            Path dir = Files.createTempDirectory("fenceguard-redis-" + port + "-");
            dir.toFile().deleteOnExit();
            return new RedisProcess(port, dir, List.of(extraArgs));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int port() {
        return port;
    }

    public RedisEndpoint endpoint() {
        return new RedisEndpoint("127.0.0.1", port);
    }

    public String uri() {
        return endpoint().uri();
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** Sends one command on a fresh connection. */
    public Object call(String... args) {
        try (RespClient client = new RespClient("127.0.0.1", port)) {
            return client.call(args);
        }
    }

    public void flushAll() {
        call("FLUSHALL");
    }

    /** SIGKILL, as a crash: nothing is saved (there is no persistence anyway). */
    public void kill() {
        if (process != null) {
            if (process.isAlive()) {
                try {
                    thaw();
                } catch (RuntimeException ignored) {
                    // killed anyway
                }
            }
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** SIGSTOP: the server stays up with its connections open but answers nothing, as in a long pause. */
    public void freeze() {
        signal("STOP");
    }

    /** SIGCONT after {@link #freeze()}. */
    public void thaw() {
        signal("CONT");
    }

    private void signal(String name) {
        if (process == null || !process.isAlive()) {
            throw new IllegalStateException("redis-server on port " + port + " is not running");
        }
        ProcessSignals.send(name, process.pid());
    }

    /** Starts the same server again on the same port, empty. */
    public void restart() {
        kill();
        startProcess(lastModeArgs);
    }

    private void startProcess(List<String> modeArgs) {
        lastModeArgs = modeArgs;
        List<String> cmd = new ArrayList<>();
        cmd.add(binary != null ? binary : executable());
        cmd.addAll(modeArgs);
        if (modeArgs.isEmpty()) {
            cmd.addAll(Arrays.asList("--port", String.valueOf(port), "--bind", "127.0.0.1",
                    "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--protected-mode", "no"));
            cmd.addAll(extraArgs);
        }
        try {
            ProcessBuilder builder = new ProcessBuilder(cmd);
            builder.environment().putAll(environment);
            process = builder
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("server.log").toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + cmd, e);
        }
        awaitPing();
    }

    private void awaitPing() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        RuntimeException last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server on port " + port + " exited; see " + dir.resolve("server.log"));
            }
            try {
                if ("PONG".equals(call("PING"))) {
                    return;
                }
            } catch (RuntimeException e) {
                last = e;
            }
            sleep(20);
        }
        throw new IllegalStateException("redis-server on port " + port + " did not answer PING", last);
    }

    @Override
    public void close() {
        kill();
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static volatile String executable;

    static String executable() {
        if (executable == null) {
            executable = findExecutable();
        }
        return executable;
    }

    private static String findExecutable() {
        String fromEnv = System.getenv("GUARD_REDIS_SERVER");
        if (fromEnv != null && !fromEnv.isBlank()) {
            return fromEnv;
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            File candidate = new File(dir, "redis-server");
            if (candidate.canExecute()) {
                return candidate.getAbsolutePath();
            }
        }
        return bundledExecutable();
    }

    private static String bundledExecutable() {
        TestDependency.EMBEDDED_REDIS.require("The redis-server from Maven (Redis without GUARD_TEST_REDIS_URL,"
                + " or a RedisProcess without GUARD_REDIS_SERVER or redis-server on the PATH)");
        try {
            File bundled = ExecutableProvider.newJarResourceProvider().get();
            bundled.setExecutable(true);
            return bundled.getAbsolutePath();
        } catch (IOException e) {
            throw new UncheckedIOException("no redis-server binary in embedded-redis for this platform", e);
        }
    }
}
