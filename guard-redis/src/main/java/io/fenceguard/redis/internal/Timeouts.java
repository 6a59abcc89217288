package io.fenceguard.redis.internal;

import java.net.SocketTimeoutException;
import java.util.concurrent.TimeoutException;

/** What the blocking Redis clients (Jedis, Spring Data's connections) report when an answer did not come in time. */
public final class Timeouts {

    private Timeouts() {
    }

    /** A call's own time ran out, or a socket read did, anywhere in the causes: the command may still have run. */
    public static boolean timedOut(Throwable error) {
        if (error instanceof TimeoutException) {
            return true;
        }
        for (Throwable e = error; e != null; e = e.getCause()) {
            if (e instanceof SocketTimeoutException) {
                return true;
            }
        }
        return false;
    }
}
