package io.fenceguard.http.support;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.testsupport.JdbcEndpoint;
import io.fenceguard.testsupport.TestServers;
import java.util.UUID;
import org.flywaydb.core.Flyway;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** The shared test servers, with a fresh schema or key prefix per test. */
public final class Stores {

    private Stores() {
    }

    /** A new schema on the test PostgreSQL with the db module's migrations applied; returns its name. */
    public static String migratedPostgresSchema() {
        String schema = "http_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        JdbcEndpoint pg = TestServers.postgres();
        Flyway.configure()
                .dataSource(pg.url(), pg.user(), pg.password())
                .schemas(schema)
                .locations("classpath:db/migration/postgresql")
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

    public static RedissonClient redis() {
        Config config = new Config();
        config.useSingleServer().setAddress(TestServers.redis().uri()).setConnectionPoolSize(16)
                .setConnectionMinimumIdleSize(2).setTimeout(2_000);
        return Redisson.create(config);
    }

    public static String uniquePrefix() {
        return "fgtest:" + UUID.randomUUID().toString().substring(0, 8) + ":";
    }
}
