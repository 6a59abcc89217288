/** The starter: fenceguard's auto-configuration with the modules it configures. It has no code of its own. */
module io.fenceguard.spring.boot.starter {
    requires transitive io.fenceguard.spring.boot.autoconfigure;
    requires transitive io.fenceguard.core;
    requires transitive io.fenceguard.redis;
    requires transitive io.fenceguard.jdbc;
    requires transitive io.fenceguard.http.filter;
    requires transitive io.fenceguard.spring;
    requires transitive io.fenceguard.reactor;
    requires transitive io.fenceguard.messaging;
    requires transitive io.fenceguard.db;
    requires transitive io.fenceguard.admission;
}
