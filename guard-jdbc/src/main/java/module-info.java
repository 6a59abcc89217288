/**
 * Fencing of SQL writes: a DataSource whose writes to fenced tables carry the current token, and the planner that
 * rewrites them. Also the high-water store of fenced HTTP requests and messages in a table
 * ({@code io.fenceguard.jdbc.admission}), for which the admission module is needed only by those who use it.
 * {@code internal} packages are not exported.
 */
module io.fenceguard.jdbc {
    requires transitive io.fenceguard.core;
    requires transitive java.sql;
    requires static io.fenceguard.admission;
    requires java.logging;
    requires net.sf.jsqlparser;
    requires org.slf4j;

    exports io.fenceguard.jdbc;
    exports io.fenceguard.jdbc.admission;
    exports io.fenceguard.jdbc.h2;
    exports io.fenceguard.jdbc.sql;
}
