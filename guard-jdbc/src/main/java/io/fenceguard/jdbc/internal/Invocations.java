package io.fenceguard.jdbc.internal;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.SQLException;

/** Calls on the wrapped JDBC object, and {@code unwrap}/{@code isWrapperFor} for every proxy. */
final class Invocations {

    private Invocations() {
    }

    static Object call(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /**
     * Handles {@code unwrap}, {@code isWrapperFor}, {@code equals} and {@code hashCode}; returns
     * {@link #NOT_HANDLED} for anything else. Unwrapping to a driver type returns the driver's object,
     * which is not fenced: that is the caller's explicit choice.
     */
    static Object wrapperMethod(Object proxy, java.sql.Wrapper target, Method method, Object[] args)
            throws SQLException {
        switch (method.getName()) {
            case "unwrap":
                return Wrapping.unwrap(proxy, target, (Class<?>) args[0]);
            case "isWrapperFor":
                return Wrapping.isWrapperFor(proxy, target, (Class<?>) args[0]);
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
