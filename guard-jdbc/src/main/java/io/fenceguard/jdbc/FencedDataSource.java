package io.fenceguard.jdbc;

import io.fenceguard.jdbc.internal.proxy.JdbcGuard;
import io.fenceguard.jdbc.internal.proxy.Wrapping;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Objects;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A DataSource whose connections fence writes with the lease in context: UPDATE, DELETE and INSERT
 * on fenced tables are rewritten to carry the lease's token, and high-water claims run in the
 * application's transactions. Works under any JDBC client, since it sits below all of them.
 *
 * <p>One fence per connection, whatever the composition: wrapping a fenced DataSource again returns
 * it, and a connection that is fenced already (this guard's, or a pool's or proxy's wrapper of one)
 * is handed out as it is. Put delegating DataSources above the fence
 * ({@code LazyConnectionDataSourceProxy(FencedDataSource(pool))}): below it, telling whether a lazy
 * connection is fenced would open the physical connection early.
 *
 * <p>{@code unwrap} and {@code isWrapperFor} answer for this object and otherwise ask the target,
 * so the pool's own type stays reachable ({@code unwrap(HikariDataSource.class)}).
 */
public final class FencedDataSource implements DataSource {

    private final DataSource target;
    private final JdbcGuard guard;

    private FencedDataSource(DataSource target, FencingConfig config) {
        this.target = Objects.requireNonNull(target, "target");
        this.guard = new JdbcGuard(config);
    }

    /**
     * Fences {@code target}; a {@link FencedDataSource} with the same configuration comes back as it is.
     *
     * @throws IllegalArgumentException when {@code target} is fenced with another configuration
     */
    public static FencedDataSource wrap(DataSource target, FencingConfig config) {
        Objects.requireNonNull(config, "config");
        if (target instanceof FencedDataSource fenced) {
            if (!fenced.config().equals(config)) {
                throw new IllegalArgumentException("already fenced with " + fenced.config()
                        + ", cannot fence it again with " + config + ": " + fenced);
            }
            return fenced;
        }
        return new FencedDataSource(target, config);
    }

    /** Whether {@code dataSource} is fenced: a {@link FencedDataSource} or a wrapper of one. */
    public static boolean isFenced(DataSource dataSource) {
        return Wrapping.isFenced(dataSource);
    }

    /**
     * The DataSource under the fence, for work that must bypass it as a whole (migrations, admin
     * jobs): the target of the {@link FencedDataSource} that {@code dataSource} is or wraps, or
     * {@code dataSource} itself when it is not fenced.
     */
    public static DataSource unfenced(DataSource dataSource) {
        if (dataSource instanceof FencedDataSource fenced) {
            return fenced.target();
        }
        if (Wrapping.isFenced(dataSource)) {
            try {
                return dataSource.unwrap(FencedDataSource.class).target();
            } catch (SQLException e) {
                throw new IllegalStateException("cannot reach the fenced DataSource in " + dataSource, e);
            }
        }
        return dataSource;
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

    /**
     * Reads the catalog now and fences by it from here on: every fenced table exists with its token
     * column, children and partitions are fenced with it, views, rules and parents over it are
     * refused for writes, routines that may write are known and {@code fenceguard_stale} is found
     * schema-qualified. The first connection tries this by itself (and, while it fails, each statement
     * but a plain read fails with why); call it at start-up to fail there, or after DDL to pick the
     * change up.
     *
     * @throws FencingConfigurationException naming the fix, when the configuration does not fit
     */
    public void verify() throws SQLException {
        try (Connection connection = target.getConnection()) {
            guard.verify(connection);
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
        return Wrapping.unwrap(this, target, iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return Wrapping.isWrapperFor(this, target, iface);
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
