package io.fenceguard.spring.boot.autoconfigure.core;

/**
 * Startup found nothing to keep leases in. Its message is one line: what is missing and what to add;
 * {@link NoLeaseStoreFailureAnalyzer} shows it instead of the bean creation stack.
 */
public class NoLeaseStoreException extends IllegalStateException {

    private static final String STARTER = "io.fenceguard:fenceguard-spring-boot-starter";
    private static final String DATA_REDIS_STARTER = "org.springframework.boot:spring-boot-starter-data-redis";
    private static final String CLIENTS = "a RedisConnectionFactory, a RedissonClient or one Jedis Pool bean";
    private static final String MEMORY = "set fenceguard.lease.store=memory (tests and single-instance applications only)";

    private final String problem;
    private final String action;

    NoLeaseStoreException(String problem, String action) {
        super(problem + ": " + action);
        this.problem = problem;
        this.action = action;
    }

    /**
     * Why {@code store} gave no provider.
     *
     * @param redisModule whether fenceguard-redis is on the class path
     */
    static NoLeaseStoreException of(LeaseStore store, boolean redisModule) {
        switch (store) {
            case ZOOKEEPER:
                return new NoLeaseStoreException("fenceguard.lease.store=zookeeper but no ZooKeeper lease provider was made",
                        "add io.fenceguard:fenceguard-zookeeper and either a CuratorFramework bean or fenceguard.zookeeper.connect-string");
            case JDBC:
                return new NoLeaseStoreException("fenceguard.lease.store=jdbc but no database lease provider was made",
                        "add io.fenceguard:fenceguard-jdbc-lease and a DataSource (spring.datasource.*)");
            case ETCD:
                return new NoLeaseStoreException("fenceguard.lease.store=etcd but no etcd lease provider was made",
                        "add io.fenceguard:fenceguard-etcd and either a jetcd Client bean or fenceguard.etcd.endpoints");
            case HAZELCAST:
                return new NoLeaseStoreException("fenceguard.lease.store=hazelcast but no Hazelcast lease provider was made",
                        "add io.fenceguard:fenceguard-hazelcast and a HazelcastInstance bean whose CP Subsystem is enabled");
            case REDLOCK:
                return new NoLeaseStoreException("fenceguard.lease.store=redlock but no Redlock lease provider was made",
                        "add io.fenceguard:fenceguard-redlock and set fenceguard.redlock.addresses to three or five Redis masters");
            default:
                break;
        }
        if (store == LeaseStore.REDIS) {
            return redisModule
                    ? new NoLeaseStoreException("fenceguard.lease.store=redis but the application has no Redis client",
                            "add " + DATA_REDIS_STARTER + " (or define " + CLIENTS + ")")
                    : new NoLeaseStoreException("fenceguard.lease.store=redis but fenceguard-redis is not on the class path",
                            "add " + STARTER + " and " + DATA_REDIS_STARTER);
        }
        return redisModule
                ? new NoLeaseStoreException("fenceguard has no lease store: no LeaseProvider bean and no Redis client",
                        "add " + DATA_REDIS_STARTER + " for leases on Redis (or define " + CLIENTS + "), or " + MEMORY)
                : new NoLeaseStoreException("fenceguard has no lease store: no LeaseProvider bean and fenceguard-redis is not on the class path",
                        "add " + STARTER + " for leases on Redis, or " + MEMORY);
    }

    /** What is missing. */
    public String problem() {
        return problem;
    }

    /** What to add or set. */
    public String action() {
        return action;
    }
}
