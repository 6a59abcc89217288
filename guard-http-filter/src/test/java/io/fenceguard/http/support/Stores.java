package io.fenceguard.http.support;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.testsupport.JdbcEndpoint;
import io.fenceguard.testsupport.TestServers;
import java.util.UUID;
import org.flywaydb.core.Flyway;

/** The shared test PostgreSQL, with a fresh schema per test. */
public final class Stores {

    /** Where the db module keeps the guard's own PostgreSQL migrations (the high-water table among them). */
    public static final String POSTGRES_MIGRATIONS = FenceguardMigrations.LOCATION_ROOT + "/postgresql";
    /** The same for H2. */
    public static final String H2_MIGRATIONS = FenceguardMigrations.LOCATION_ROOT + "/h2";

    private Stores() {
    }

    /** A new schema on the test PostgreSQL with the db module's migrations applied; returns its name. */
    public static String migratedPostgresSchema() {
        String schema = "http_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        JdbcEndpoint pg = TestServers.postgres();
        Flyway.configure()
                .dataSource(pg.url(), pg.user(), pg.password())
                .schemas(schema)
                .locations(POSTGRES_MIGRATIONS)
                .load()
                .migrate();
        return schema;
    }

    public static HikariDataSource postgres(String schema, int poolSize) {
        JdbcEndpoint pg = TestServers.postgres();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(pg.url());
        config.setUsername(pg.user());
        config.setPassword(pg.password());
        config.setSchema(schema);
        config.setMaximumPoolSize(poolSize);
        return new HikariDataSource(config);
    }
}
