package io.fenceguard.spring.boot.autoconfigure.db;

import io.fenceguard.spring.schema.FenceguardMigrationInitializer;
import java.util.Set;
import org.springframework.core.Ordered;
import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;

/**
 * Tells Spring Boot that {@link FenceguardMigrationInitializer} initialises the database. Ordered after
 * Flyway's detectors (0 and 1) and after the SQL scripts' ({@code spring.sql.init}, lowest precedence - 100):
 * Flyway refuses to start the application's history in a schema that already holds the guard's tables, and
 * trigger mode's triggers go on fenced tables that a schema.sql creates; so the application's Flyway and
 * scripts come first, then the guard, and the beans that use the database wait for all of them.
 */
class FenceguardMigrationInitializerDetector extends AbstractBeansOfTypeDatabaseInitializerDetector {

    static final int ORDER = Ordered.LOWEST_PRECEDENCE - 50;

    @Override
    protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
        return Set.of(FenceguardMigrationInitializer.class);
    }

    @Override
    public int getOrder() {
        return ORDER;
    }
}
