package io.fenceguard.jdbc.lease;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.ScratchSpace;
import io.fenceguard.test.support.TestServers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** A pool on a schema (PostgreSQL) or database (MariaDB) of its own, with the lease table; dropped on close. */
record ScratchDatabase(String kind, ScratchSpace space, HikariDataSource dataSource) implements AutoCloseable {

    static ScratchDatabase on(String kind) {
        JdbcEndpoint server = "mariadb".equals(kind) ? TestServers.mariadb() : TestServers.postgres();
        ScratchSpace space = ScratchSpace.create(server, "fg_lease");
        HikariConfig config = new HikariConfig();
        config.setUsername(server.user());
        config.setPassword(server.password());
        config.setMaximumPoolSize(12);
        config.setPoolName(space.name());
        config.setJdbcUrl(space.jdbcUrl());
        if (space.schema() != null) {
            config.setSchema(space.schema());
        }
        HikariDataSource dataSource = new HikariDataSource(config);
        JdbcLeaseSchema.create(dataSource);
        return new ScratchDatabase(kind, space, dataSource);
    }

    String name() {
        return space.name();
    }

    JdbcEndpoint server() {
        return space.server();
    }

    /** The same database at a port nobody listens on: every statement fails as when the server is gone. */
    DataSource unreachable() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(server().url().replaceFirst("//[^/]+/", "//127.0.0.1:1/"));
        config.setUsername(server().user());
        config.setPassword(server().password());
        config.setInitializationFailTimeout(-1);
        config.setConnectionTimeout(500);
        return new HikariDataSource(config);
    }

    void sql(String... statements) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    @Override
    public void close() {
        dataSource.close();
        space.close();
    }
}
