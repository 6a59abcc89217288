package io.fenceguard.redis;

import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.ScratchSpace;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** A plain {@link DataSource} on a {@link ScratchSpace} of the test's own: its schema or database is current. */
final class ScratchDataSource extends ConnectionsOnlyDataSource implements AutoCloseable {

    private final ScratchSpace space;
    private final DataSource connections;

    private ScratchDataSource(ScratchSpace space) {
        this.space = space;
        this.connections = space.dataSource();
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
        return connections.getConnection();
    }

    @Override
    public void close() {
        space.close();
    }
}
