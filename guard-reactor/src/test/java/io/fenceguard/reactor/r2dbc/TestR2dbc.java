package io.fenceguard.reactor.r2dbc;

import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.TestServers;
import io.r2dbc.postgresql.PostgresqlConnectionConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import io.r2dbc.spi.ConnectionFactory;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.postgresql.ds.PGSimpleDataSource;

/** The test PostgreSQL (TestServers) over JDBC and over R2DBC, with the guard's migrations applied. */
public final class TestR2dbc {

    private static volatile boolean migrated;

    private TestR2dbc() {
    }

    public static PGSimpleDataSource jdbc() {
        JdbcEndpoint postgres = TestServers.postgres();
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(postgres.url());
        dataSource.setUser(postgres.user());
        dataSource.setPassword(postgres.password());
        if (!migrated) {
            synchronized (TestR2dbc.class) {
                if (!migrated) {
                    FenceguardMigrations.migrate(dataSource);
                    migrated = true;
                }
            }
        }
        return dataSource;
    }

    /** An R2DBC factory on the same database as {@link #jdbc()}: host, port and database from its JDBC URL. */
    public static ConnectionFactory r2dbc() {
        jdbc();
        JdbcEndpoint postgres = TestServers.postgres();
        URI uri = URI.create(postgres.url().substring("jdbc:".length()));
        String path = uri.getPath() == null || uri.getPath().length() <= 1 ? "postgres" : uri.getPath().substring(1);
        PostgresqlConnectionConfiguration.Builder config = PostgresqlConnectionConfiguration.builder()
                .host(uri.getHost()).port(uri.getPort() < 0 ? 5432 : uri.getPort()).database(path)
                .username(postgres.user());
        if (postgres.password() != null && !postgres.password().isEmpty()) {
            config.password(postgres.password());
        }
        return new PostgresqlConnectionFactory(config.build());
    }

    /** A new schema with the guard's migrations applied, over JDBC: for a test whose rows no other test may touch. */
    public static PGSimpleDataSource migratedSchema(String schema) {
        execute("CREATE SCHEMA " + schema);
        PGSimpleDataSource dataSource = jdbc();
        dataSource.setCurrentSchema(schema);
        FenceguardMigrations.migrate(dataSource);
        return dataSource;
    }

    public static void execute(String sql) {
        try (Connection connection = jdbc().getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }
}
