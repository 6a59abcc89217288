package io.fenceguard.http.filter.support;

import io.fenceguard.admission.AdmissionTransaction;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import javax.sql.DataSource;

/**
 * Transactions bound to the request's thread, as a transaction manager would bind them: the
 * DataSource of {@link #dataSource()} hands out the bound connection while one is open.
 */
public final class ThreadBoundTransactions implements AdmissionTransaction {
    private final DataSource target;
    private final ThreadLocal<Connection> bound = new ThreadLocal<>();

    public ThreadBoundTransactions(DataSource target) {
        this.target = target;
    }

    @Override
    public void run(Work work) throws Exception {
        try (Connection connection = target.getConnection()) {
            connection.setAutoCommit(false);
            bound.set(connection);
            try {
                if (work.run()) {
                    connection.commit();
                } else {
                    connection.rollback();
                }
            } catch (Exception e) {
                connection.rollback();
                throw e;
            } finally {
                bound.remove();
                connection.setAutoCommit(true);
            }
        }
    }

    public DataSource dataSource() {
        return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    Connection open = bound.get();
                    if (method.getName().equals("getConnection") && open != null) {
                        return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                                (p, m, a) -> m.getName().equals("close") ? null : invoke(m, open, a));
                    }
                    return invoke(method, target, args);
                });
    }

    private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
