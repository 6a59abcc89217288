/** Leases on ZooKeeper through Curator. {@code internal} is not exported. */
module io.fenceguard.zookeeper {
    requires transitive io.fenceguard.core;
    requires transitive curator.framework;
    requires curator.client;
    requires curator.recipes;
    requires zookeeper;
    requires org.slf4j;

    requires static io.fenceguard.admission;

    exports io.fenceguard.zookeeper;
}
