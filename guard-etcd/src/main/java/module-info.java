/** Leases on etcd through jetcd. */
module io.fenceguard.etcd {
    requires transitive io.fenceguard.core;
    requires transitive jetcd.core;
    requires jetcd.common;
    requires org.slf4j;

    requires static io.fenceguard.admission;

    exports io.fenceguard.etcd;
}
