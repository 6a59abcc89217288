package io.fenceguard.proof;

/**
 * One client operation as the checker sees it: who ran it, on which resource, when (epoch millis,
 * all processes share the host clock), the token it was granted (null when the lock was not
 * obtained) and how it ended.
 *
 * @param outcome {@code ok} (acknowledged), {@code fail} (known not applied) or {@code unknown}
 *                (may or may not have been applied: the commit or the response was lost)
 * @param error   short kind of failure, such as {@code stale-db} or {@code lock-timeout}; null when ok
 */
public record Op(String id, String client, String workload, String resource, String lockService,
        long start, long end, Long token, String outcome, String error, Long written) {

    public static final String OK = "ok";
    public static final String FAIL = "fail";
    public static final String UNKNOWN = "unknown";

    public boolean ok() {
        return OK.equals(outcome);
    }

    /** Refused by a fence (database row or high-water mark, HTTP filter or the lease's own validity check). */
    public boolean fencedOff() {
        return error != null && (error.startsWith("stale") || error.startsWith("refused"));
    }
}
