package io.fenceguard.proof;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;

/** Keeps logs to warnings: without a configuration logback prints every Redisson and driver debug line. */
final class Quiet {

    private Quiet() {
    }

    /** Held so that the JDK does not collect the configured loggers (and forget their levels). */
    private static final java.util.logging.Logger TOMCAT = java.util.logging.Logger.getLogger("org.apache");
    /** fenceguard-core logs through System.Logger, which lands here: a lost lease is expected under faults. */
    private static final java.util.logging.Logger GUARD_CORE = java.util.logging.Logger.getLogger("io.fenceguard");

    static void logs() {
        TOMCAT.setLevel(java.util.logging.Level.SEVERE);
        GUARD_CORE.setLevel(java.util.logging.Level.SEVERE);
        if (LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME) instanceof Logger root) {
            root.setLevel(Level.WARN);
        }
        if (LoggerFactory.getLogger("org.redisson") instanceof Logger redisson) {
            redisson.setLevel(Level.OFF);   // decoder noise after the proxy drops connections
        }
        if (LoggerFactory.getLogger("io.fenceguard") instanceof Logger guard) {
            guard.setLevel(Level.ERROR);
        }
        if (LoggerFactory.getLogger("org.flywaydb") instanceof Logger flyway) {
            flyway.setLevel(Level.ERROR);   // the guard's idempotent scripts drop what may not exist yet
        }
    }
}
