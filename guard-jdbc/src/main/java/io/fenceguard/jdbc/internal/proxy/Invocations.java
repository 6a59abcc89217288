package io.fenceguard.jdbc.internal.proxy;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import io.fenceguard.jdbc.FencingRefusedException;
import io.fenceguard.jdbc.FencingRefusedException.Reason;
import java.sql.SQLException;

/** Calls on the wrapped JDBC object, and {@code unwrap}/{@code isWrapperFor} for every proxy. */
final class Invocations {

    private Invocations() {
    }

    static Object call(Object target, Method method, Object[] args) throws Throwable {
        Object direct = DirectCalls.call(target, method.getDeclaringClass(), method.getName(), args);
        if (direct != DirectCalls.NOT_DIRECT) {
            return direct;
        }
        try {
            return method.invoke(target, DriverObjects.driverArguments(args));
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /**
     * Handles {@code unwrap}, {@code isWrapperFor}, {@code equals} and {@code hashCode}; returns
     * {@link #NOT_HANDLED} for anything else. The one policy for every fenced JDBC object: it unwraps to
     * the types it is itself (a fenced view: {@code Connection}, {@code PreparedStatement},
     * {@link io.fenceguard.jdbc.FencedConnection}, ...), and refuses any other type, since every
     * driver object below a fenced one is a write path the guard does not see. {@code isWrapperFor}
     * answers accordingly. Driver-level work uses {@code FencedDataSource.unfenced(dataSource)}.
     */
    static Object wrapperMethod(Object proxy, Object target, Method method, Object[] args)
            throws SQLException {
        switch (method.getName()) {
            case "unwrap":
                if (args != null && args.length == 1 && args[0] instanceof Class<?> iface) {
                    if (iface.isInstance(proxy)) {
                        return proxy;
                    }
                    throw new FencingRefusedException(Reason.RAW_ACCESS, "unwrap to " + iface.getName()
                            + " would hand out the driver's own object, whose writes are not fenced; a fenced"
                            + " object unwraps only to the JDBC interfaces it implements. For driver-level work"
                            + " use FencedDataSource.unfenced(dataSource)", "unwrap(" + iface.getName() + ")",
                            JdbcGuard.fenceInContext().orElse(null), null);
                }
                return NOT_HANDLED;
            case "isWrapperFor":
                if (args != null && args.length == 1 && args[0] instanceof Class<?> iface) {
                    return iface.isInstance(proxy);
                }
                return NOT_HANDLED;
            case "equals":
                return args != null && args.length == 1 && proxy == args[0];
            case "hashCode":
                return System.identityHashCode(proxy);
            case "toString":
                return "Fenced[" + target + "]";
            default:
                return NOT_HANDLED;
        }
    }

    static final Object NOT_HANDLED = new Object();
}
