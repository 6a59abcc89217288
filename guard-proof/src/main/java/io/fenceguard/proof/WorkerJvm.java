package io.fenceguard.proof;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A {@link ProofWorker} in its own JVM on this JVM's class path (fenceguard-proof's runtime class path when
 * the harness runs under failsafe or the {@code proof} profile's exec:exec). {@link #stop()} and {@link #resume()}
 * send SIGSTOP and SIGCONT: every thread of the process freezes, the lease renewal included, which is
 * the most honest pause there is.
 */
final class WorkerJvm implements AutoCloseable {

    private final String name;
    private final Process process;
    private final Path history;
    private volatile boolean stopped;

    private WorkerJvm(String name, Process process, Path history) {
        this.name = name;
        this.process = process;
        this.history = history;
    }

    static WorkerJvm start(String name, Path topology, int threads, Path dir) throws IOException {
        Path history = dir.resolve("history-" + name + ".jsonl");
        Path log = dir.resolve("worker-" + name + ".log");
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", classPath(), ProofWorker.class.getName(),
                topology.toString(), name, String.valueOf(threads), history.toString());
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        return new WorkerJvm(name, process, history);
    }

    /**
     * This JVM's class path, checked to hold the harness and its dependencies: a launcher that hides the
     * class path (a manifest-only jar, an IDE's argument file) would otherwise start workers that die at
     * once, and the run would see no worker at all.
     */
    static String classPath() {
        String classPath = System.getProperty("java.class.path", "");
        Set<Path> entries = Arrays.stream(classPath.split(File.pathSeparator)).filter(e -> !e.isBlank())
                .map(e -> Path.of(e).toAbsolutePath().normalize()).collect(Collectors.toSet());
        for (Class<?> needed : List.of(ProofWorker.class, org.redisson.Redisson.class, io.fenceguard.core.Lease.class)) {
            Path location = locationOf(needed);
            if (location != null && !entries.contains(location)) {
                throw new IllegalStateException("worker JVMs need fenceguard-proof's runtime class path, but java.class.path"
                        + " lacks " + location + " (of " + needed.getName() + "): run the harness through failsafe"
                        + " (ProofIT) or the proof profile (exec:exec), which put the class path on the command line");
            }
        }
        return classPath;
    }

    private static Path locationOf(Class<?> type) {
        CodeSource source = type.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) {
            return null;
        }
        try {
            return Path.of(source.getLocation().toURI()).toAbsolutePath().normalize();
        } catch (URISyntaxException | IllegalArgumentException e) {
            return null;
        }
    }

    String name() {
        return name;
    }

    Path history() {
        return history;
    }

    void stop() {
        signal("STOP");
        stopped = true;
    }

    void resume() {
        if (stopped) {
            signal("CONT");
            stopped = false;
        }
    }

    private void signal(String which) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + which, String.valueOf(process.pid())).inheritIO().start();
            kill.waitFor(10, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new IllegalStateException("cannot send SIG" + which + " to worker " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits for the worker to finish its operations; kills it when it does not within {@code seconds}. */
    boolean awaitExit(long seconds) throws InterruptedException {
        resume();
        if (process.waitFor(seconds, TimeUnit.SECONDS)) {
            return true;
        }
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        return false;
    }

    @Override
    public void close() {
        resume();
        process.destroyForcibly();
    }
}
