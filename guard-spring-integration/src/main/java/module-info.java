/** A Spring Integration LockRegistry on fenceguard leases. */
module io.fenceguard.spring.integration {
    requires transitive io.fenceguard.core;
    requires transitive spring.integration.core;

    exports io.fenceguard.spring.integration;
}
