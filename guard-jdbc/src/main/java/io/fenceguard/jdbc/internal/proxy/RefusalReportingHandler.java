package io.fenceguard.jdbc.internal.proxy;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;

/**
 * The one seam of every fenced JDBC object: each call goes to {@link #dispatch}, and whatever it throws is
 * told to the guard's refusal listener (once, however many proxies it crosses) before it reaches the caller.
 */
abstract class RefusalReportingHandler implements InvocationHandler {

    @Override
    public final Object invoke(Object self, Method method, Object[] args) throws Throwable {
        try {
            return dispatch(self, method, args);
        } catch (Throwable thrown) {
            guard().reportRefusal(thrown);
            throw thrown;
        }
    }

    abstract Object dispatch(Object self, Method method, Object[] args) throws Throwable;

    abstract JdbcGuard guard();
}
