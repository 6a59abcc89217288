/**
 * Fencing of HTTP: the servlet filter at the resource, and what sends the token: the interceptors of Spring's
 * clients and the JDK HttpClient's request header (servlet, Spring and the JDK HttpClient optional).
 * {@code internal} is not exported.
 */
module io.fenceguard.http.filter {
    requires transitive io.fenceguard.core;
    requires transitive io.fenceguard.admission;
    requires org.slf4j;

    requires static java.net.http;

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
