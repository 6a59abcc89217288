/**
 * Spring Boot auto-configuration of fenceguard: one auto-configuration per concern, each on the classes it needs
 * (all optional). Open, because Spring Boot reflects on its configuration and properties classes.
 */
open module io.fenceguard.spring.boot.autoconfigure {
    requires transitive io.fenceguard.core;
    requires transitive io.fenceguard.spring;
    requires transitive spring.boot;
    requires transitive spring.boot.autoconfigure;
    requires spring.context;
    requires spring.beans;
    requires spring.core;
    requires org.slf4j;
    requires static java.sql;

    requires static io.fenceguard.admission;
    requires static io.fenceguard.redis;
    requires static io.fenceguard.jdbc;
    requires static io.fenceguard.http.filter;
    requires static io.fenceguard.db;
    requires static io.fenceguard.zookeeper;
    requires static io.fenceguard.etcd;
    requires static io.fenceguard.hazelcast;
    requires static io.fenceguard.jdbc.lease;
    requires static io.fenceguard.redlock;
    requires static io.fenceguard.reactor;
    requires static io.fenceguard.messaging;
    requires static reactor.core;
    requires static r2dbc.spi;
    requires static redisson;
    requires static redis.clients.jedis;
    requires static spring.data.redis;
    requires static spring.boot.jdbc;
    requires static spring.boot.sql;
    requires static spring.boot.flyway;
    requires static flyway.core;
    requires static io.github.resilience4j.core;
    requires static io.github.resilience4j.circuitbreaker;
    requires static io.github.resilience4j.micrometer;
    requires static spring.aop;
    requires static spring.boot.health;
    requires static micrometer.core;
    requires static micrometer.observation;
    requires static spring.boot.actuator;
    requires static spring.boot.actuator.autoconfigure;
    requires static spring.kafka;
    requires static kafka.clients;
    requires static spring.amqp;
    requires static spring.rabbit;
    requires static spring.boot.kafka;
    requires static spring.boot.amqp;
    requires static jakarta.servlet;
    requires static spring.web;
    requires static spring.webmvc;
    requires static spring.webflux;
    requires static spring.boot.restclient;
    requires static spring.boot.webclient;
    requires static spring.tx;
    requires static spring.jdbc;
    requires static spring.orm;
    requires static spring.r2dbc;
    requires static spring.boot.jooq;
    requires static org.jooq;
    requires static org.mybatis;
    requires static org.mybatis.spring;
    requires static curator.framework;
    requires static jetcd.core;
    requires static com.hazelcast.core;

    exports io.fenceguard.spring.boot.autoconfigure.aot;
    exports io.fenceguard.spring.boot.autoconfigure.core;
    exports io.fenceguard.spring.boot.autoconfigure.dao;
    exports io.fenceguard.spring.boot.autoconfigure.db;
    exports io.fenceguard.spring.boot.autoconfigure.etcd;
    exports io.fenceguard.spring.boot.autoconfigure.hazelcast;
    exports io.fenceguard.spring.boot.autoconfigure.http;
    exports io.fenceguard.spring.boot.autoconfigure.jdbc;
    exports io.fenceguard.spring.boot.autoconfigure.jdbc.lease;
    exports io.fenceguard.spring.boot.autoconfigure.messaging;
    exports io.fenceguard.spring.boot.autoconfigure.observation;
    exports io.fenceguard.spring.boot.autoconfigure.outbox;
    exports io.fenceguard.spring.boot.autoconfigure.webflux;
    exports io.fenceguard.spring.boot.autoconfigure.redis;
    exports io.fenceguard.spring.boot.autoconfigure.redlock;
    exports io.fenceguard.spring.boot.autoconfigure.zookeeper;
}
