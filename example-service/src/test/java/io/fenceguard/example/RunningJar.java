package io.fenceguard.example;

import io.fenceguard.test.support.RedisProcess;
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

/** The packaged service started as a user would: {@code java -jar example-service.jar --…}. */
final class RunningJar implements AutoCloseable {

    private final Process process;
    private final int port;
    private final Path log;
    private final long startupMillis;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private RunningJar(Process process, int port, Path log, long startupMillis) {
        this.process = process;
        this.port = port;
        this.log = log;
        this.startupMillis = startupMillis;
    }

    static RunningJar start(String name, List<String> args) throws Exception {
        String jar = System.getProperty("example.jar", "target/example-service.jar");
        int port = RedisProcess.freePort();
        Path log = Path.of("target", "it-" + name + ".log");
        Files.createDirectories(log.getParent());
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                // The service runs for seconds here: the quick compiler alone starts it in half the CPU time.
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", jar,
                "--server.port=" + port));
        command.addAll(args);
        long start = System.nanoTime();
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        RunningJar running = null;
        HttpClient probe = HttpClient.newHttpClient();
        long deadline = start + Duration.ofSeconds(180).toNanos();
        while (System.nanoTime() < deadline && process.isAlive()) {
            try {
                HttpResponse<String> health = probe.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/actuator/health")).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (health.statusCode() == 200) {
                    running = new RunningJar(process, port, log, Duration.ofNanos(System.nanoTime() - start).toMillis());
                    break;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(100);
        }
        if (running == null) {
            process.destroyForcibly();
            throw new IllegalStateException("the service did not become healthy; its log: " + log.toAbsolutePath()
                    + "\n" + tail(log));
        }
        System.out.printf("%s: first 200 from /actuator/health %d ms after java -jar%n", name, running.startupMillis);
        return running;
    }

    int port() {
        return port;
    }

    long startupMillis() {
        return startupMillis;
    }

    /** What the service has logged so far. */
    List<String> logLines() throws IOException {
        return Files.readAllLines(log);
    }

    HttpResponse<String> send(String method, String path, String json) throws Exception {
        return send(method, path, json, null);
    }

    HttpResponse<String> send(String method, String path, String json, String[] headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(60))
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
        if (json != null) {
            request.header("Content-Type", "application/json");
        }
        if (headers != null) {
            request.headers(headers);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** kill -9: the process gets no chance to finish anything. */
    void kill() throws InterruptedException {
        process.destroyForcibly();   // SIGKILL on Unix
        process.waitFor(20, java.util.concurrent.TimeUnit.SECONDS);
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        if (!process.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
