/** A Spring Integration LockRegistry on fenceguard leases. */
module io.fenceguard.integration {
    requires transitive io.fenceguard.core;
    requires transitive spring.integration.core;

    exports io.fenceguard.integration;
}
