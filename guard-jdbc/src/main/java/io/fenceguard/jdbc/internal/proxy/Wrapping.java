package io.fenceguard.jdbc.internal.proxy;

import io.fenceguard.jdbc.FencedConnection;
import io.fenceguard.jdbc.FencedDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Wrapper;
import javax.sql.DataSource;

/**
 * The one unwrap and isWrapperFor policy of every fenced object (DataSource, connection, statement):
 * the object itself answers for the types it is, and everything else is asked of what it wraps. So a
 * pool's or a driver's type stays reachable through the fence, and "is this fenced?" has one answer
 * however deep the fence sits.
 */
public final class Wrapping {

    private Wrapping() {
    }

    public static <T> T unwrap(Object self, Wrapper target, Class<T> iface) throws SQLException {
        return iface.isInstance(self) ? iface.cast(self) : target.unwrap(iface);
    }

    public static boolean isWrapperFor(Object self, Wrapper target, Class<?> iface) throws SQLException {
        return iface.isInstance(self) || target.isWrapperFor(iface);
    }

    /** Whether {@code connection} is fenced already: one of ours, or a wrapper that says it wraps one. */
    public static boolean isFenced(Connection connection) {
        return connection instanceof FencedConnection || wraps(connection, FencedConnection.class);
    }

    /** Whether {@code dataSource} is a {@link FencedDataSource} or a wrapper that says it wraps one. */
    public static boolean isFenced(DataSource dataSource) {
        return dataSource instanceof FencedDataSource || wraps(dataSource, FencedDataSource.class);
    }

    private static boolean wraps(Wrapper wrapper, Class<?> iface) {
        try {
            return wrapper.isWrapperFor(iface);
        } catch (SQLException | RuntimeException e) {
            // A wrapper that cannot tell (a closed pool, a driver without the method) wraps nothing of ours.
            return false;
        }
    }
}
