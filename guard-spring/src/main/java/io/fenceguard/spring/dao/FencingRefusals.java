package io.fenceguard.spring.dao;

import io.fenceguard.db.FenceguardTriggers;
import io.fenceguard.jdbc.FencingRefusedException;
import io.fenceguard.jdbc.StaleTokenException;
import java.sql.SQLException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import org.springframework.dao.DataAccessException;

/**
 * Recognises fenceguard's refusals in a cause chain and names them in Spring's vocabulary; used by
 * {@link FencingExceptionTranslator} (JDBC, JPA) and by the R2DBC execute function, without Spring JDBC.
 */
public final class FencingRefusals {

    private FencingRefusals() {
    }

    /**
     * The fenceguard exception for a refusal found in the cause chain of {@code ex}, with {@code ex} as its
     * cause; {@code null} when the chain holds none.
     *
     * @param task what was being done (as Spring's translators take it), or {@code null}
     * @param sql the SQL, or {@code null} when not known
     */
    public static DataAccessException translate(String task, String sql,
                                                                 Throwable ex) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = ex; t != null && seen.add(t); t = t.getCause()) {
            if (t instanceof StaleTokenException stale) {
                return new StaleTokenFailureException(message(task, sql, stale), ex, stale);
            }
            if (t instanceof FencingRefusedException refused) {
                return refused.reason() == FencingRefusedException.Reason.LEASE_LOST
                        ? new LeaseLostFailureException(message(task, sql, refused), refused)
                        : new FencingRefusedUsageException(message(task, sql, refused), ex, refused);
            }
            if (t instanceof SQLException raised && raised.getSQLState() != null) {
                switch (raised.getSQLState()) {
                    case StaleTokenException.SQL_STATE:
                        return new StaleTokenFailureException(message(task, sql, raised), ex, null);
                    case FencingRefusedException.SQL_STATE, FenceguardTriggers.NO_TOKEN_STATE:
                        return new FencingRefusedUsageException(message(task, sql, raised), ex, null);
                    default:
                        break;
                }
            }
        }
        return null;
    }

    private static String message(String task, String sql, Throwable refusal) {
        return (task == null ? "" : task + "; ") + (sql == null ? "" : "SQL [" + sql + "]; ") + refusal.getMessage();
    }
}
