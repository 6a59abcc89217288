package io.fenceguard.jdbc;

import io.fenceguard.jdbc.internal.JdbcGuard;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Objects;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A DataSource whose connections fence writes with the lease in context: UPDATE, DELETE and INSERT
 * on fenced tables are rewritten to carry the lease's token, and gate claims run in the
 * application's transactions. Works under any JDBC client, since it sits below all of them.
 */
public final class FencedDataSource implements DataSource {

    private final DataSource target;
    private final JdbcGuard guard;

    private FencedDataSource(DataSource target, FencingConfig config) {
        this.target = Objects.requireNonNull(target, "target");
        this.guard = new JdbcGuard(config);
    }

    public static FencedDataSource wrap(DataSource target, FencingConfig config) {
        if (target instanceof FencedDataSource) {
            throw new IllegalArgumentException("already fenced: " + target);
        }
        return new FencedDataSource(target, config);
    }

    /** The unfenced DataSource underneath. */
    public DataSource target() {
        return target;
    }

    public FencingConfig config() {
        return guard.config();
    }

    /** The SQL a statement becomes when fenced (or why it is refused); for diagnostics. */
    public String explain(String sql) throws SQLException {
        try (Connection connection = target.getConnection()) {
            return guard.explain(sql, connection);
        }
    }

    @Override
    public Connection getConnection() throws SQLException {
        return guard.wrap(target.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return guard.wrap(target.getConnection(username, password));
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return iface.isInstance(this) ? iface.cast(this) : target.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || target.isWrapperFor(iface);
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return target.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        target.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        target.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return target.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return target.getParentLogger();
    }

    @Override
    public String toString() {
        return "FencedDataSource[" + target + ", fenced " + guard.config().tables() + "]";
    }
}
