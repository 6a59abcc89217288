/** Leases and fencing for Project Reactor: the lease in the subscriber context, WebFlux and R2DBC (optional). */
module io.fenceguard.reactor {
    requires transitive io.fenceguard.core;
    requires transitive reactor.core;
    requires transitive org.reactivestreams;
    requires org.slf4j;

    requires static io.fenceguard.admission;
    requires static io.fenceguard.jdbc;
    requires static r2dbc.spi;
    requires static spring.beans;
    requires static spring.core;
    requires static spring.context;
    requires static spring.web;
    requires static spring.webflux;
    requires static spring.r2dbc;
    requires static spring.tx;

    exports io.fenceguard.reactor;
    exports io.fenceguard.reactor.r2dbc;
    exports io.fenceguard.reactor.spring;
    exports io.fenceguard.reactor.webflux;
    exports io.fenceguard.reactor.webflux.r2dbc;
}
