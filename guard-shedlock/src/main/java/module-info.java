/** ShedLock's LockProvider on fenceguard leases, so that scheduled tasks get fencing tokens. */
module io.fenceguard.shedlock {
    requires transitive io.fenceguard.core;
    requires transitive net.javacrumbs.shedlock.core;

    exports io.fenceguard.shedlock;
}
