package io.fenceguard.spring.boot.autoconfigure.core;

/** Values of {@code fenceguard.lease.store}: where the auto-configured LeaseManager keeps its leases. */
public enum LeaseStore {

    /** The application's own LeaseProvider bean, else Redis when there is a RedissonClient bean (or, without one, a single Jedis pool bean), else none (startup fails). */
    AUTO,
    /** Redis through the application's RedissonClient, else its single Jedis pool bean; startup fails without either. */
    REDIS,
    /** This JVM's memory: for tests and single-instance applications. Never chosen unless set. */
    MEMORY,
    /** ZooKeeper through the application's CuratorFramework, else one made from {@code fenceguard.zookeeper.connect-string}. */
    ZOOKEEPER,
    /** A lease table in the application's database (its DataSource), through fenceguard-jdbc-lease. */
    JDBC,
    /** Redlock over the independent Redis masters listed in {@code fenceguard.redlock.addresses}. */
    REDLOCK,
    /** etcd through the application's jetcd Client, else one made from {@code fenceguard.etcd.endpoints}. */
    ETCD,
    /** Hazelcast's CP Subsystem (a FencedLock per resource) through the application's HazelcastInstance. */
    HAZELCAST
}
