/**
 * The test dependency of a fenced Spring Boot application: the in-memory lease store in test contexts unless the
 * application or the test chooses another, fencing kept on in Boot's slice tests, and {@code FencingTester}. Open,
 * because Spring reflects on its configuration and on the factories named in its resources.
 */
open module io.fenceguard.spring.boot.test {
    requires transitive io.fenceguard.core;
    requires transitive io.fenceguard.spring.boot.autoconfigure;
    requires transitive io.fenceguard.test.support;
    requires spring.test;
    requires spring.context;
    requires spring.beans;
    requires spring.core;

    exports io.fenceguard.spring.boot.test;
}
