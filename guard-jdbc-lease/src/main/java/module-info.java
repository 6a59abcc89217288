/** Leases in a table of the application's database. */
module io.fenceguard.jdbc.lease {
    requires transitive io.fenceguard.core;
    requires transitive java.sql;

    requires static io.fenceguard.admission;

    exports io.fenceguard.jdbc.lease;
}
