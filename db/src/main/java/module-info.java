/** fenceguard's database schema: its migrations, and their runner without Flyway (Flyway optional). */
module io.fenceguard.db {
    requires transitive java.sql;

    requires static flyway.core;

    exports io.fenceguard.db;
}
