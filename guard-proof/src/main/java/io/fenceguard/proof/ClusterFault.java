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
     * are) for three lease times: its writes arrive after its leases ran out.
     */
    STORE_LINK_DELAY,
    /**
     * One lease time added to every round trip on the first instance's links to the Redis Cluster (a proxy per node;
     * its Redisson client maps the addresses the nodes announce onto them) for three lease times: grants, renewals
     * and releases arrive late, a grant after its lease ran out.
     */
    REDIS_LINK_DELAY,
    /**
     * One deposit paused between its read and its write for three lease times (the example's chaos pause, with its
     * lease's renewals withheld, as a GC pause would) while the other clients go on: it wakes to write a balance read
     * under a lease that ran out. The pause aimed where a stale write does harm, so the control run (fencing off)
     * shows what fencing refuses.
     */
    HOLDER_PAUSE
}
