/**
 * fenceguard in Spring: the @Fenced interceptor, transactions, metrics, observations and web support. Open,
 * because Spring reflects on its configuration and advice classes (as on an application's).
 */
open module io.fenceguard.spring {
    requires transitive io.fenceguard.core;
    requires transitive spring.context;
    requires transitive spring.beans;
    requires transitive spring.core;
    requires transitive spring.aop;
    requires spring.expression;
    requires micrometer.observation;
    requires micrometer.commons;
    requires org.slf4j;
    requires java.sql;

    requires static io.fenceguard.admission;
    requires static io.fenceguard.jdbc;
    requires static io.fenceguard.db;
    requires static io.fenceguard.messaging;
    requires static spring.web;
    requires static spring.webmvc;
    requires static spring.webflux;
    requires static spring.tx;
    requires static spring.jdbc;
    requires static spring.orm;
    requires static spring.r2dbc;
    requires static r2dbc.spi;
    requires static jakarta.persistence;
    requires static micrometer.core;
    requires static spring.kafka;
    requires static kafka.clients;
    requires static spring.amqp;
    requires static spring.rabbit;
    requires static reactor.core;
    requires static org.reactivestreams;

    exports io.fenceguard.spring.dao;
    exports io.fenceguard.spring.dao.orm;
    exports io.fenceguard.spring.dao.r2dbc;
    exports io.fenceguard.spring.jdbc;
    exports io.fenceguard.spring.messaging.amqp;
    exports io.fenceguard.spring.messaging.kafka;
    exports io.fenceguard.spring.method;
    exports io.fenceguard.spring.observation;
    exports io.fenceguard.spring.schema;
    exports io.fenceguard.spring.transaction;
    exports io.fenceguard.spring.web;
    exports io.fenceguard.spring.web.webflux;
    exports io.fenceguard.spring.web.servlet;
}
