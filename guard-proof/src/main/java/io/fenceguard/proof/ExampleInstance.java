package io.fenceguard.proof;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One instance of the example service, started as a user would ({@code java -jar example-service.jar}) on a fixed
 * loopback port, so that it comes back on the same address after {@link #kill()} and {@link #start()}.
 */
final class ExampleInstance implements AutoCloseable {

    private static final Duration STARTUP = Duration.ofSeconds(180);
    private final String name;
    private final Path jar;
    private final int port;
    private final List<String> args;
    private final Path log;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private Process process;

    ExampleInstance(String name, Path jar, int port, List<String> args, Path logDir) {
        this.name = name;
        this.jar = jar;
        this.port = port;
        this.args = List.copyOf(args);
        this.log = logDir.resolve(name + ".log");
    }

    String name() {
        return name;
    }

    int port() {
        return port;
    }

    /** Starts the process and returns once {@code /actuator/health} answers 200; throws with the log's tail if not. */
    void start() throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx384m",
                // Two CPUs shared by three services and the harness: the quick compiler and one GC thread.
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", jar.toString(), "--server.port=" + port));
        command.addAll(args);
        Files.createDirectories(log.getParent());
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        long deadline = System.nanoTime() + STARTUP.toNanos();
        while (System.nanoTime() < deadline && process.isAlive()) {
            try {
                if (send("GET", "/actuator/health", null, Duration.ofSeconds(5)).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        if (process.isAlive()) {
            threadDump();   // what it waits for, in its log
        }
        process.destroyForcibly();
        throw new IllegalStateException(name + " did not become healthy in " + STARTUP.toSeconds() + " s; its log: "
                + log.toAbsolutePath());
    }

    /** The process's threads ({@code jstack}), appended to its log; at most 30 s. */
    private void threadDump() throws IOException, InterruptedException {
        Process jstack = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jstack").toString(),
                Long.toString(process.pid())).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        if (!jstack.waitFor(30, TimeUnit.SECONDS)) {
            jstack.destroyForcibly();
        }
    }

    HttpResponse<String> send(String method, String path, String json, Duration timeout)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(timeout)
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
        if (json != null) {
            request.header("Content-Type", "application/json");
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    boolean isAlive() {
        return process != null && process.isAlive();
    }

    long pid() {
        if (!isAlive()) {
            throw new IllegalStateException(name + " is not running");
        }
        return process.pid();
    }

    /** kill -9: the process gets no chance to finish anything. */
    void kill() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();   // SIGKILL on Unix
            process.waitFor(20, TimeUnit.SECONDS);
        }
    }

    /** SIGSTOP: the JVM keeps its sockets open and answers nothing, as in a long GC pause or a frozen VM. */
    void pause() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** SIGCONT after {@link #pause()}. */
    void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + pid() + " failed");
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null) {
            if (process.isAlive()) {
                try {
                    resume();   // a stopped JVM does not act on SIGTERM
                } catch (IOException | RuntimeException alreadyGone) {
                    // stopped below anyway
                }
            }
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
