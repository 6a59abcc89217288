package io.fenceguard.jdbc.internal.proxy;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.Statement;

/**
 * Keeps every JDBC object reachable from a fenced connection inside the fence: a result set, a
 * metadata object or an array the driver returns is handed out behind a proxy whose
 * {@code getConnection()} and {@code getStatement()} lead back to fenced objects, never to the
 * driver's. Other returned values (ResultSetMetaData, Blob, Savepoint, ...) lead to no connection and
 * pass as they are.
 */
final class DriverObjects {

    private DriverObjects() {
    }

    /**
     * {@code result} of {@code method} on a fenced object, with every escape route closed; a primitive or a string
     * (update counts, {@code getInt}, {@code next}) leads nowhere and is not looked at.
     */
    static Object guard(ConnectionHandler connection, Method method, Object result) throws java.sql.SQLException {
        Class<?> type = method.getReturnType();
        return type.isPrimitive() || type == String.class ? result : guard(connection, result);
    }

    private static Object guard(ConnectionHandler connection, Object result) throws java.sql.SQLException {
        if (result == null || Proxy.isProxyClass(result.getClass())
                && Proxy.getInvocationHandler(result) instanceof RefusalReportingHandler) {
            return result;
        }
        if (result instanceof Connection) {
            return connection.proxyOf((Connection) result);
        }
        if (result instanceof Statement statement) {
            return connection.adopt(statement);
        }
        if (result instanceof ResultSet) {
            return proxy(connection, result, ResultSet.class);
        }
        if (result instanceof DatabaseMetaData) {
            return proxy(connection, result, DatabaseMetaData.class);
        }
        if (result instanceof Array) {
            return proxy(connection, result, Array.class);
        }
        return result;
    }

    /**
     * {@code args} with the driver's own object in place of each fenced result set, metadata or array
     * (a fenced array passed back to {@code setArray}): the driver expects its own types.
     */
    static Object[] driverArguments(Object[] args) {
        if (args == null) {
            return null;
        }
        Object[] driver = args;
        for (int i = 0; i < args.length; i++) {
            Object own = driverObject(args[i]);
            if (own != args[i]) {
                if (driver == args) {
                    driver = args.clone();
                }
                driver[i] = own;
            }
        }
        return driver;
    }

    /** The driver's own object behind a fenced result set, metadata or array; any other value as it is. */
    static Object driverObject(Object value) {
        if (value != null && Proxy.isProxyClass(value.getClass())
                && Proxy.getInvocationHandler(value) instanceof DriverObjectHandler handler) {
            return handler.raw;
        }
        return value;
    }

    private static Object proxy(ConnectionHandler connection, Object raw, Class<?> type) {
        return Proxy.newProxyInstance(JdbcGuard.class.getClassLoader(), new Class<?>[] {type},
                new DriverObjectHandler(connection, raw));
    }

    /** Behind a fenced ResultSet, DatabaseMetaData or Array. */
    static final class DriverObjectHandler extends RefusalReportingHandler {

        private final ConnectionHandler connection;
        private final Object raw;

        DriverObjectHandler(ConnectionHandler connection, Object raw) {
            this.connection = connection;
            this.raw = raw;
        }

        @Override
        JdbcGuard guard() {
            return connection.guard();
        }

        @Override
        Object dispatch(Object self, Method method, Object[] args) throws Throwable {
            if (method.getName().equals("toString") && (args == null || args.length == 0)) {
                // the driver's text: an array's literal is what setArray of another driver reads
                return raw.toString();
            }
            Object wrapperResult = Invocations.wrapperMethod(self, raw, method, args);
            if (wrapperResult != Invocations.NOT_HANDLED) {
                return wrapperResult;
            }
            if (method.getName().equals("getConnection") && (args == null || args.length == 0)) {
                return connection.proxy();
            }
            return DriverObjects.guard(connection, method, Invocations.call(raw, method, args));
        }
    }
}
