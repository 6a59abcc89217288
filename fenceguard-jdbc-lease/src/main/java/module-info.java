/** Leases in a table of the application's database. */
module io.fenceguard.jdbclock {
    requires transitive io.fenceguard.core;
    requires transitive java.sql;

    exports io.fenceguard.jdbclock;
}
