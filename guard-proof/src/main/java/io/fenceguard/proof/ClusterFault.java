package io.fenceguard.proof;

/** The faults of the multi-instance run, injected one at a time during load. */
enum ClusterFault {
    /** kill -9 of one instance of the service, then the same jar started again on its port. */
    INSTANCE_KILL,
    /** SIGKILL of the Redis master that holds most of the run's keys; its replica is promoted, the old master rejoins. */
    REDIS_FAILOVER,
    /** PostgreSQL stopped with a fast shutdown ({@code pg_ctl stop -m fast}) and started again. */
    POSTGRES_FAST_RESTART,
    /** Every PostgreSQL process killed at once (harsher than {@code -m immediate}: no goodbye), then crash recovery. */
    POSTGRES_CRASH_RESTART,
    /** SIGSTOP of one instance for three lease times, then SIGCONT: it wakes up holding leases that ran out. */
    INSTANCE_PAUSE,
    /**
     * One lease time added to every round trip on one instance's link to PostgreSQL (where its rows, marks and outbox
     * are) for three lease times: its writes arrive after its leases ran out. The Redis Cluster link is not delayed:
     * a cluster client follows the nodes' own addresses from {@code CLUSTER SLOTS} and redirects, past any proxy.
     */
    STORE_LINK_DELAY
}
