package io.fenceguard.autoconfigure.db;

import io.fenceguard.spring.schema.FenceguardMigrationInitializer;
import java.util.Set;
import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;

/**
 * Tells Spring Boot that {@link FenceguardMigrationInitializer} initialises the database. Ordered after
 * Flyway's detectors (0 and 1): Flyway refuses to start the application's history in a schema that
 * already holds the guard's tables, so the application's Flyway migrates first, then the guard.
 */
class FenceguardMigrationInitializerDetector extends AbstractBeansOfTypeDatabaseInitializerDetector {

    static final int ORDER = 10;

    @Override
    protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
        return Set.of(FenceguardMigrationInitializer.class);
    }

    @Override
    public int getOrder() {
        return ORDER;
    }
}
