package io.fenceguard.spring.schema;

import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.db.FenceguardTriggers;
import io.fenceguard.db.FenceguardTriggers.FencedColumn;
import java.util.List;
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
    private final List<FencedColumn> triggerTables;

    public FenceguardMigrationInitializer(DataSource dataSource) {
        this(dataSource, List.of());
    }

    /** Also installs trigger mode's triggers on {@code triggerTables} after the migrations. */
    public FenceguardMigrationInitializer(DataSource dataSource, List<FencedColumn> triggerTables) {
        this.dataSource = dataSource;
        this.triggerTables = List.copyOf(triggerTables);
    }

    @Override
    public void afterPropertiesSet() {
        DataSource physical = JDBC_PRESENT ? Fences.unfenced(dataSource) : dataSource;
        int applied = FenceguardMigrations.migrate(physical);
        log.info("fenceguard: its tables are up to date ({} migrations applied from {}, history {})", applied,
                FenceguardMigrations.location(physical), FenceguardMigrations.HISTORY_TABLE);
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
