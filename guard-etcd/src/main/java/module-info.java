/** Leases on etcd through jetcd. */
module io.fenceguard.etcd {
    requires transitive io.fenceguard.core;
    requires transitive jetcd.core;
    requires jetcd.common;
    requires org.slf4j;

    exports io.fenceguard.etcd;
}
