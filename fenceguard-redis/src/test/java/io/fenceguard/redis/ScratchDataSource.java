package io.fenceguard.redis;

import io.fenceguard.testsupport.JdbcEndpoint;
import io.fenceguard.testsupport.ScratchSpace;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** A plain {@link DataSource} on a {@link ScratchSpace} of the test's own: its schema or database is current. */
final class ScratchDataSource extends ConnectionsOnlyDataSource implements AutoCloseable {

    private final ScratchSpace space;

    private ScratchDataSource(ScratchSpace space) {
        this.space = space;
    }

    static ScratchDataSource on(JdbcEndpoint server, String prefix) {
        return new ScratchDataSource(ScratchSpace.create(server, prefix));
    }

    ScratchSpace space() {
        return space;
    }

    void execute(String sql) {
        try (Connection c = getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " failed", e);
        }
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection c = DriverManager.getConnection(space.jdbcUrl(), space.server().user(), space.server().password());
        if (space.schema() != null) {
            c.setSchema(space.schema());
        }
        return c;
    }

    @Override
    public void close() {
        space.close();
    }
}
