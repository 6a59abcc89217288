package io.fenceguard.example.embedded;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * An embedded PostgreSQL (zonky, binaries from Maven) on a data directory that outlives it: started
 * again on the same directory, it has the same databases and rows. The directory is initialised on
 * first use; {@code discard} empties it first. The server's own output goes to a file beside the
 * directory ({@code <data-dir>.log}), not into the application's log.
 */
public final class PersistentPostgres implements AutoCloseable {

    /** zonky's lock file in the data directory, held by the JVM that runs a server on it. */
    private static final String LOCK_FILE = "epg-lock";
    /** Present in every PostgreSQL data directory; its absence means the directory is not one. */
    private static final String VERSION_FILE = "PG_VERSION";
    /** How every failure to start begins. */
    private static final String REFUSAL = "embedded PostgreSQL: ";

    private final EmbeddedPostgres server;
    private final Path dataDirectory;

    private PersistentPostgres(EmbeddedPostgres server, Path dataDirectory) {
        this.server = server;
        this.dataDirectory = dataDirectory;
    }

    /**
     * Starts PostgreSQL on {@code dataDirectory} (created when missing) and {@code port}.
     *
     * @param discard whether to delete the data there first; only a PostgreSQL data directory or an
     *                empty one is ever deleted
     * @throws IllegalStateException when another process runs a server on the directory, or
     *                               {@code discard} is asked for a directory that is not PostgreSQL's
     */
    public static PersistentPostgres start(Path dataDirectory, int port, boolean discard) {
        Path dir = dataDirectory.toAbsolutePath().normalize();
        Path serverLog = serverLog(dir);
        try {
            Files.createDirectories(dir);
            requireUnused(dir);
            if (discard) {
                deleteContents(dir);
            } else {
                stopOrphanedServer(dir);
            }
            EmbeddedPostgres server = EmbeddedPostgres.builder()
                    .setDataDirectory(dir.toFile())
                    .setCleanDataDirectory(false)
                    // durable, unlike the test-minded defaults (-F, synchronous_commit=off): later options win
                    .setServerConfig("fsync", "on")
                    .setServerConfig("synchronous_commit", "on")
                    .setPort(port)
                    .setPGStartupWait(Duration.ofSeconds(60))
                    .setOutputRedirector(ProcessBuilder.Redirect.appendTo(serverLog.toFile()))
                    .setErrorRedirector(ProcessBuilder.Redirect.appendTo(serverLog.toFile()))
                    .start();
            return new PersistentPostgres(server, dir);
        } catch (IOException | RuntimeException e) {
            if (e instanceof IllegalStateException refused && String.valueOf(refused.getMessage()).startsWith(REFUSAL)) {
                throw refused;
            }
            throw new IllegalStateException(REFUSAL + "could not start in " + dir + " (" + e.getMessage()
                    + "); the server's log is " + serverLog, e);
        }
    }

    /** The server's output: beside the data directory, which must hold nothing else before initdb. */
    static Path serverLog(Path dataDirectory) {
        Path dir = dataDirectory.toAbsolutePath().normalize();
        return dir.resolveSibling(dir.getFileName() + ".log");
    }

    public Path dataDirectory() {
        return dataDirectory;
    }

    public int port() {
        return server.getPort();
    }

    /** The JDBC URL of database {@code postgres} as user {@code postgres} (trust authentication, loopback only). */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + server.getPort() + "/postgres";
    }

    /** Stops the server (a fast shutdown: committed data is kept); the directory stays. */
    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException("could not stop embedded PostgreSQL in " + dataDirectory, e);
        }
    }

    /** Fails when another process (or this one) has a server on the directory: two servers would corrupt it. */
    private static void requireUnused(Path dir) throws IOException {
        Path lockFile = dir.resolve(LOCK_FILE);
        if (!Files.exists(lockFile)) {
            return;
        }
        try (FileOutputStream stream = new FileOutputStream(lockFile.toFile(), true);
             FileLock lock = stream.getChannel().tryLock()) {
            if (lock != null) {
                return;
            }
        } catch (OverlappingFileLockException inThisJvm) {
            // held by this JVM: in use all the same
        }
        throw new IllegalStateException(REFUSAL + "its data directory " + dir + " is in use by another "
                + "running instance; stop it, or set example.embedded.data-dir to another directory");
    }

    /**
     * A server left running by a process that was killed (no shutdown hook ran) still holds the
     * directory; nobody uses it any more (the lock is free), so it is asked to shut down.
     */
    private static void stopOrphanedServer(Path dir) throws IOException {
        Path pidFile = dir.resolve("postmaster.pid");
        if (!Files.exists(pidFile)) {
            return;
        }
        List<String> lines = Files.readAllLines(pidFile);
        // Only a postgres process started on this very directory: a pid may have been reused since.
        Optional<ProcessHandle> orphan = lines.isEmpty() ? Optional.empty() : parsePid(lines.get(0))
                .flatMap(ProcessHandle::of)
                .filter(p -> p.info().command().map(c -> c.endsWith("postgres")).orElse(false))
                .filter(p -> p.info().commandLine().map(c -> c.contains(dir.toString())).orElse(false));
        if (orphan.isEmpty()) {
            return;   // a stale pid file: PostgreSQL itself ignores it
        }
        orphan.get().destroy();   // SIGTERM: a smart shutdown, which completes at once without clients
        try {
            orphan.get().onExit().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(REFUSAL + "an orphaned server (pid " + orphan.get().pid()
                    + ") still runs on " + dir + "; stop it and start again", e);
        }
    }

    private static Optional<Long> parsePid(String line) {
        try {
            return Optional.of(Long.parseLong(line.trim()));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static void deleteContents(Path dir) throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            List<Path> children = entries.toList();
            boolean onlyLock = children.stream().allMatch(p -> p.getFileName().toString().equals(LOCK_FILE));
            if (!onlyLock && !Files.exists(dir.resolve(VERSION_FILE))) {
                throw new IllegalStateException(REFUSAL + "example.embedded.discard=true, but " + dir + " is not a PostgreSQL "
                        + "data directory (no " + VERSION_FILE + "); nothing was deleted. Point example.embedded.data-dir "
                        + "at the directory of the embedded database, or at a new one");
            }
            stopOrphanedServer(dir);
            for (Path child : children) {
                deleteRecursively(child);
            }
        }
    }

    private static void deleteRecursively(Path path) throws IOException {
        try (Stream<Path> walk = Files.walk(path)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
