package io.fenceguard.spring.boot.autoconfigure.jdbc;

import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.TestServers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A database of its own on a test server (a schema on PostgreSQL, a database on MariaDB, an in-memory
 * H2), with its URL for {@code spring.datasource.url} and a physical (driver) DataSource; dropped on close.
 * MariaDB tests are skipped, with the reason, where there is no MariaDB.
 */
public final class ScratchDatabase implements AutoCloseable {

    public static final String[] KINDS = {"postgresql", "mariadb", "h2"};

    /**
     * The guard's migration history on a database of {@code kind}, as "version:success", from a baseline 0 when
     * the schema held the application's tables first: PostgreSQL has a version more (V7, its unlogged table).
     */
    public static java.util.List<String> guardHistory(String kind, boolean baseline) {
        int last = kind.equals("postgresql") ? 7 : 6;
        return java.util.stream.IntStream.rangeClosed(baseline ? 0 : 1, last).mapToObj(v -> v + ":true").toList();
    }

    private final String kind;
    private final String url;
    private final String user;
    private final String password;
    private final Supplier<DataSource> connector;
    private final DataSource physical;
    private final Runnable drop;

    private ScratchDatabase(String kind, String url, String user, String password, Supplier<DataSource> connector,
                            Runnable drop) {
        this.kind = kind;
        this.url = url;
        this.user = user;
        this.password = password;
        this.connector = connector;
        this.physical = connector.get();
        this.drop = drop;
    }

    public String kind() {
        return kind;
    }

    /** The database's physical DataSource (a driver DataSource, no pool). */
    public DataSource physical() {
        return physical;
    }

    /** Another physical DataSource on the same database: another object, as a second pool would be. */
    public DataSource newPhysical() {
        return connector.get();
    }

    public static ScratchDatabase of(String kind) throws SQLException {
        String name = "fg_ac_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        return switch (kind) {
            case "postgresql" -> postgres(name);
            case "mariadb" -> mariadb(name);
            case "h2" -> h2(name);
            default -> throw new IllegalArgumentException(kind);
        };
    }

    private static ScratchDatabase postgres(String name) throws SQLException {
        JdbcEndpoint server = TestServers.postgres();
        execute(server, "CREATE SCHEMA " + name);
        String url = server.url() + (server.url().contains("?") ? "&" : "?") + "currentSchema=" + name;
        Supplier<DataSource> connector = () -> {
            PGSimpleDataSource dataSource = new PGSimpleDataSource();
            dataSource.setURL(url);
            dataSource.setUser(server.user());
            dataSource.setPassword(server.password());
            return dataSource;
        };
        return new ScratchDatabase("postgresql", url, server.user(), server.password(), connector,
                () -> execute(server, "DROP SCHEMA " + name + " CASCADE"));
    }

    private static ScratchDatabase mariadb(String name) throws SQLException {
        JdbcEndpoint server = TestServers.mariadb();
        execute(server, "CREATE DATABASE " + name);
        String url = server.url().replaceFirst("(//[^/]+/)[^?]*", "$1" + name);
        Supplier<DataSource> connector = () -> {
            try {
                MariaDbDataSource dataSource = new MariaDbDataSource(url);
                dataSource.setUser(server.user());
                dataSource.setPassword(server.password());
                return dataSource;
            } catch (SQLException e) {
                throw new IllegalStateException(url, e);
            }
        };
        return new ScratchDatabase("mariadb", url, server.user(), server.password(), connector,
                () -> execute(server, "DROP DATABASE " + name));
    }

    private static ScratchDatabase h2(String name) {
        String url = "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1";
        Supplier<DataSource> connector = () -> {
            JdbcDataSource dataSource = new JdbcDataSource();
            dataSource.setURL(url);
            dataSource.setUser("sa");
            return dataSource;
        };
        return new ScratchDatabase("h2", url, "sa", "", connector, () -> {
            try (Connection c = connector.get().getConnection(); Statement s = c.createStatement()) {
                s.execute("SHUTDOWN");
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static void execute(JdbcEndpoint server, String sql) {
        try (Connection connection = server.connect(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    public void execute(String... statements) throws SQLException {
        try (Connection connection = physical.getConnection(); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }

    /** The Boot properties that point the application's DataSource here. */
    public String[] datasourceProperties() {
        return new String[] {"spring.datasource.url=" + url, "spring.datasource.username=" + user,
                "spring.datasource.password=" + password};
    }

    @Override
    public void close() {
        drop.run();
    }
}
