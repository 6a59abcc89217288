package io.fenceguard.spring.schema;

import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.db.FenceguardMigrations.Feature;
import io.fenceguard.db.FenceguardTriggers;
import io.fenceguard.db.FenceguardTriggers.FencedColumn;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import io.fenceguard.jdbc.FencedDataSource;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.util.ClassUtils;

/**
 * Migrates the guard's own tables when it is initialised, on the physical DataSource under the fence
 * (the guard's scripts need no lease). Spring Boot treats it as a database initializer: it runs after the
 * application's Flyway and its SQL scripts (spring.sql.init), and the beans that depend on database initialization (JdbcTemplate, JPA, ...) wait
 * for it. Loaded only with fenceguard-db; fenceguard-jdbc is used when present.
 */
public class FenceguardMigrationInitializer implements InitializingBean {

    private static final Logger log = LoggerFactory.getLogger(FenceguardMigrationInitializer.class);
    private static final boolean JDBC_PRESENT = ClassUtils.isPresent("io.fenceguard.jdbc.FencedDataSource",
            FenceguardMigrationInitializer.class.getClassLoader());

    private final DataSource dataSource;
    private final Set<Feature> features;
    private final List<FencedColumn> triggerTables;

    /** Migrates the tables of every feature. */
    public FenceguardMigrationInitializer(DataSource dataSource) {
        this(dataSource, List.of());
    }

    /** Migrates the tables of every feature, then installs trigger mode's triggers on {@code triggerTables}. */
    public FenceguardMigrationInitializer(DataSource dataSource, List<FencedColumn> triggerTables) {
        this(dataSource, EnumSet.allOf(Feature.class), triggerTables);
    }

    /**
     * Migrates the tables of {@code features} only (none: no table, no history), then installs trigger mode's
     * triggers on {@code triggerTables}.
     */
    public FenceguardMigrationInitializer(DataSource dataSource, Set<Feature> features,
            List<FencedColumn> triggerTables) {
        this.dataSource = dataSource;
        this.features = features.isEmpty() ? EnumSet.noneOf(Feature.class) : EnumSet.copyOf(features);
        this.triggerTables = List.copyOf(triggerTables);
    }

    /** The features whose tables it migrates. */
    public Set<Feature> features() {
        return Set.copyOf(features);
    }

    @Override
    public void afterPropertiesSet() {
        DataSource physical = JDBC_PRESENT ? Fences.unfenced(dataSource) : dataSource;
        if (features.isEmpty()) {
            log.info("fenceguard: no feature in use needs its tables, none migrated");
        } else {
            int applied = FenceguardMigrations.migrate(physical, features);
            log.info("fenceguard: its tables for {} are up to date ({} migrations applied from {}, history {})",
                    features.stream().map(Feature::folder).toList(), applied, FenceguardMigrations.location(physical),
                    FenceguardMigrations.HISTORY_TABLE);
        }
        if (!triggerTables.isEmpty()) {
            FenceguardTriggers.install(physical, triggerTables);
            log.info("fenceguard: trigger mode's triggers are installed on {}", triggerTables);
        }
    }

    /** fenceguard-jdbc's part, in a class of its own: loaded only when fenceguard-jdbc is there. */
    private static final class Fences {
        static DataSource unfenced(DataSource dataSource) {
            return FencedDataSource.unfenced(dataSource);
        }
    }
}
