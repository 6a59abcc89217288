package io.fenceguard.db;

import io.fenceguard.test.support.ScratchSpace;
import io.fenceguard.test.support.TestServers;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

/** A schema (PostgreSQL) or database (MariaDB) of its own on the test server, dropped on close. */
record ScratchSchema(String name, DataSource dataSource, ScratchSpace space) implements AutoCloseable {

    static ScratchSchema on(String kind) throws SQLException {
        return switch (kind) {
            case "postgresql" -> postgres(ScratchSpace.create(TestServers.postgres(), "fg_db"));
            case "mariadb" -> mariadb(ScratchSpace.create(TestServers.mariadb(), "fg_db"));
            default -> throw new IllegalArgumentException(kind);
        };
    }

    private static ScratchSchema postgres(ScratchSpace space) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(space.jdbcUrl());
        dataSource.setUser(space.server().user());
        dataSource.setPassword(space.server().password());
        dataSource.setCurrentSchema(space.schema());
        return new ScratchSchema(space.name(), dataSource, space);
    }

    private static ScratchSchema mariadb(ScratchSpace space) throws SQLException {
        MariaDbDataSource dataSource = new MariaDbDataSource(space.jdbcUrl());
        dataSource.setUser(space.server().user());
        dataSource.setPassword(space.server().password());
        return new ScratchSchema(space.name(), dataSource, space);
    }

    @Override
    public void close() {
        space.close();
    }
}
