package io.fenceguard.proof;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@link ProofWorker} in its own JVM on this test's class path. {@link #stop()} and {@link #resume()}
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
                "-cp", System.getProperty("java.class.path"), ProofWorker.class.getName(),
                topology.toString(), name, String.valueOf(threads), history.toString());
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        return new WorkerJvm(name, process, history);
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
