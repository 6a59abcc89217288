package io.fenceguard.example.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded PostgreSQL keeps its rows across restarts on one directory, throws them away only when
 * asked and only from a PostgreSQL data directory, and never runs two servers on one directory.
 */
class PersistentPostgresTest {

    @TempDir
    Path temp;

    @Test
    void rowsOutliveARestartAndDiscardStartsEmpty() throws Exception {
        Path dir = temp.resolve("pg");
        try (PersistentPostgres postgres = PersistentPostgres.start(dir, freePort(), false)) {
            execute(postgres, "CREATE TABLE accounts (id VARCHAR(64) PRIMARY KEY, balance BIGINT NOT NULL)");
            execute(postgres, "INSERT INTO accounts VALUES ('kept', 42)");
        }
        try (PersistentPostgres postgres = PersistentPostgres.start(dir, freePort(), false)) {
            assertThat(postgres.dataDirectory()).isEqualTo(dir.toAbsolutePath());
            assertThat(balance(postgres, "kept")).isEqualTo(42);
        }
        assertThat(PersistentPostgres.serverLog(dir)).as("the server's own log, beside its directory")
                .isRegularFile().isNotEmptyFile();
        try (PersistentPostgres postgres = PersistentPostgres.start(dir, freePort(), true)) {
            assertThat(tableExists(postgres, "accounts")).isFalse();
            execute(postgres, "CREATE TABLE accounts (id VARCHAR(64) PRIMARY KEY, balance BIGINT NOT NULL)");
        }
    }

    /** A process killed outright (no shutdown hook) leaves its server running; the next start stops it and goes on. */
    @Test
    void aServerLeftByAKilledProcessIsStoppedAndItsDataKept() throws Exception {
        Path dir = temp.resolve("orphaned");
        Process owner = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"), KilledOwner.class.getName(), dir.toString(),
                String.valueOf(freePort())).redirectErrorStream(true).start();
        try (var out = new java.io.BufferedReader(new java.io.InputStreamReader(owner.getInputStream()))) {
            String line;
            while ((line = out.readLine()) != null && !line.equals(KilledOwner.READY)) {
                // the child's own output
            }
            assertThat(line).as("the child started its server").isEqualTo(KilledOwner.READY);
            owner.destroyForcibly().waitFor();
        }
        long orphanPid = Long.parseLong(Files.readAllLines(dir.resolve("postmaster.pid")).get(0).trim());
        assertThat(ProcessHandle.of(orphanPid)).as("the orphaned server").hasValueSatisfying(
                p -> assertThat(p.isAlive()).isTrue());

        try (PersistentPostgres postgres = PersistentPostgres.start(dir, freePort(), false)) {
            assertThat(balance(postgres, "survivor")).isEqualTo(7);
        }
        assertThat(ProcessHandle.of(orphanPid).filter(ProcessHandle::isAlive)).isEmpty();
    }

    /** Starts a server, writes a row, says so, and waits to be killed. */
    public static final class KilledOwner {

        static final String READY = "row written";

        public static void main(String[] args) throws Exception {
            PersistentPostgres postgres = PersistentPostgres.start(Path.of(args[0]), Integer.parseInt(args[1]), false);
            execute(postgres, "CREATE TABLE accounts (id VARCHAR(64) PRIMARY KEY, balance BIGINT NOT NULL)");
            execute(postgres, "INSERT INTO accounts VALUES ('survivor', 7)");
            System.out.println(READY);
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    @Test
    void aDirectoryInUseIsRefusedAndLeftRunning() throws Exception {
        Path dir = temp.resolve("busy");
        try (PersistentPostgres first = PersistentPostgres.start(dir, freePort(), false)) {
            execute(first, "CREATE TABLE t (x INT)");
            assertThatThrownBy(() -> PersistentPostgres.start(dir, freePort(), false))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(dir.toAbsolutePath().toString()).hasMessageContaining("in use")
                    .hasMessageContaining("example.embedded.data-dir");
            assertThatThrownBy(() -> PersistentPostgres.start(dir, freePort(), true))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("in use");
            assertThat(tableExists(first, "t")).isTrue();
        }
    }

    @Test
    void discardRefusesADirectoryThatIsNotPostgresqlsAndDeletesNothing() throws Exception {
        Path dir = temp.resolve("mine");
        Files.createDirectories(dir);
        Path precious = Files.writeString(dir.resolve("notes.txt"), "not a database");
        assertThatThrownBy(() -> PersistentPostgres.start(dir, freePort(), true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is not a PostgreSQL data directory").hasMessageContaining("nothing was deleted");
        assertThat(precious).hasContent("not a database");
    }

    private static long balance(PersistentPostgres postgres, String id) throws SQLException {
        try (Connection c = connect(postgres); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT balance FROM accounts WHERE id = '" + id + "'")) {
            assertThat(rs.next()).as("row %s", id).isTrue();
            return rs.getLong(1);
        }
    }

    private static boolean tableExists(PersistentPostgres postgres, String table) throws SQLException {
        try (Connection c = connect(postgres); ResultSet rs = c.getMetaData().getTables(null, "public", table, null)) {
            return rs.next();
        }
    }

    private static void execute(PersistentPostgres postgres, String sql) throws SQLException {
        try (Connection c = connect(postgres); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static Connection connect(PersistentPostgres postgres) throws SQLException {
        return DriverManager.getConnection(postgres.jdbcUrl(), "postgres", "");
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
