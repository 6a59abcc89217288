package io.fenceguard.proof;

import io.fenceguard.core.LeaseLostException;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.jdbc.FencingRefusedException;
import io.fenceguard.jdbc.StaleTokenException;
import java.sql.SQLException;

/** Names why an operation failed, for the history: the checker and the chart group by these kinds. */
final class Outcomes {

    private Outcomes() {
    }

    /** Whether the database refused a stale token (row fence or high-water mark), whatever wraps it. */
    static boolean isStale(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof StaleTokenException
                    || t instanceof SQLException sql && StaleTokenException.SQL_STATE.equals(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /** The kind of a failure before the commit was sent: nothing was applied. */
    static String kind(Throwable e) {
        if (isStale(e)) {
            return "stale-db";
        }
        if (e instanceof FencingRefusedException refused) {
            return "refused-" + refused.reason().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }
        if (e instanceof LeaseLostException) {
            return "refused-lease-lost";
        }
        if (e instanceof LeaseTimeoutException || e instanceof LockService.LockNotObtainedException) {
            return "lock-timeout";
        }
        if (e instanceof LeaseUnavailableException) {
            return "lock-store-unavailable";
        }
        if (e instanceof org.redisson.client.RedisException) {
            return "redis-error";
        }
        if (e instanceof java.util.concurrent.ExecutionException && e.getCause() != null) {
            return kind(e.getCause());
        }
        if (e instanceof io.etcd.jetcd.common.exception.EtcdException) {
            return "etcd-error";
        }
        if (e instanceof java.util.concurrent.TimeoutException) {
            return "etcd-timeout";
        }
        if (e instanceof SQLException) {
            return "db-error";
        }
        return e.getClass().getSimpleName();
    }
}
