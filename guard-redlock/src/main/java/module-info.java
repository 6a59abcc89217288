/** Leases on a majority of independent Redis servers through Redisson. {@code internal} is not exported. */
module io.fenceguard.redlock {
    requires transitive io.fenceguard.core;
    requires transitive redisson;
    requires io.github.resilience4j.core;

    exports io.fenceguard.redlock;
}
