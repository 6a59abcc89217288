/**
 * Fencing of SQL writes: a DataSource whose writes to fenced tables carry the current token, and the planner that
 * rewrites them. {@code internal} packages are not exported.
 */
module io.fenceguard.jdbc {
    requires transitive io.fenceguard.core;
    requires transitive java.sql;
    requires java.logging;
    requires net.sf.jsqlparser;
    requires org.slf4j;

    exports io.fenceguard.jdbc;
    exports io.fenceguard.jdbc.h2;
    exports io.fenceguard.jdbc.sql;
}
