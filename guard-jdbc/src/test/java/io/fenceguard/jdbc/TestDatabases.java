package io.fenceguard.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.TestServers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

/** Pools on the test servers, with the guard's migrations (fenceguard-db) applied once per JVM. */
public final class TestDatabases {

    private static final Map<SqlDialect, DataSource> POOLS = new ConcurrentHashMap<>();

    private TestDatabases() {
    }

    public static DataSource of(SqlDialect dialect) {
        return POOLS.computeIfAbsent(dialect, d -> switch (d) {
            case POSTGRESQL -> migrated(pool(TestServers.postgres()));
            case MARIADB -> migrated(pool(TestServers.mariadb()));
            case H2 -> migrated(pool(new JdbcEndpoint("jdbc:h2:mem:fenceguard;DB_CLOSE_DELAY=-1", "sa", "")));
        });
    }

    private static DataSource pool(JdbcEndpoint endpoint) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(endpoint.url());
        config.setUsername(endpoint.user());
        config.setPassword(endpoint.password());
        config.setMaximumPoolSize(10);
        config.setPoolName("test-" + endpoint.url().split(":")[1]);
        return new HikariDataSource(config);
    }

    private static DataSource migrated(DataSource dataSource) {
        FenceguardMigrations.migrate(dataSource);
        return dataSource;
    }

    public static void execute(DataSource dataSource, String... statements) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }
}
