package io.fenceguard.test.support;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/** Plain connections to a {@link ScratchSpace}, its schema current; the driver is the one its URL names. */
final class ScratchSpaceDataSource implements DataSource {

    private final ScratchSpace space;
    private PrintWriter logWriter;
    private int loginTimeout;

    ScratchSpaceDataSource(ScratchSpace space) {
        this.space = space;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return getConnection(space.server().user(), space.server().password());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        Connection connection = DriverManager.getConnection(space.jdbcUrl(), username, password);
        if (space.schema() != null) {
            try {
                connection.setSchema(space.schema());
            } catch (SQLException e) {
                connection.close();
                throw e;
            }
        }
        return connection;
    }

    @Override
    public PrintWriter getLogWriter() {
        return logWriter;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
        this.logWriter = out;
    }

    @Override
    public void setLoginTimeout(int seconds) {
        this.loginTimeout = seconds;
    }

    @Override
    public int getLoginTimeout() {
        return loginTimeout;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("no parent logger");
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        throw new SQLException("not a wrapper of " + type.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        return type.isInstance(this);
    }
}
