package io.fenceguard.redis;

import io.fenceguard.testsupport.JdbcEndpoint;
import io.fenceguard.testsupport.ScratchSpace;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.logging.Logger;
import javax.sql.DataSource;

/** A plain {@link DataSource} on a {@link ScratchSpace} of the test's own: its schema or database is current. */
final class ScratchDataSource implements DataSource, AutoCloseable {

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
    public Connection getConnection(String username, String password) throws SQLException {
        return getConnection();
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
    }

    @Override
    public void setLoginTimeout(int seconds) {
    }

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        throw new SQLException("not a wrapper of " + iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this);
    }

    @Override
    public void close() {
        space.close();
    }
}
