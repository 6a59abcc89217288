/**
 * Fencing of HTTP: the servlet filter at the resource, and the interceptors that send the token with Spring's
 * clients (servlet and Spring optional). {@code internal} is not exported.
 */
module io.fenceguard.http.filter {
    requires transitive io.fenceguard.core;
    requires transitive io.fenceguard.admission;
    requires org.slf4j;

    requires static jakarta.servlet;
    requires static spring.core;
    requires static spring.web;
    requires static spring.webmvc;
    requires static spring.webflux;
    requires static reactor.core;
    requires static io.fenceguard.reactor;
    requires static org.reactivestreams;

    exports io.fenceguard.http.filter;
    exports io.fenceguard.http.filter.spring;
}
