package io.fenceguard.example;

import io.fenceguard.jdbc.Unfenced;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer;
import org.springframework.boot.flyway.autoconfigure.FlywayMigrationStrategy;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Runs the migrations of {@code fenceguard-db} at start-up: the guard's own tables and the ledger's,
 * from the folder of the database in use. Migrations are admin work, so they run {@link Unfenced}.
 */
@Configuration(proxyBeanMethods = false)
public class MigrationConfig {

    @Bean
    FlywayConfigurationCustomizer dialectFolders() {
        return configuration -> {
            String folder = folderOf(configuration.getDataSource());
            configuration.locations("classpath:db/migration/" + folder, "classpath:db/example");
        };
    }

    @Bean
    FlywayMigrationStrategy unfencedMigration() {
        return flyway -> Unfenced.run(flyway::migrate);
    }

    static String folderOf(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            String product = connection.getMetaData().getDatabaseProductName().toLowerCase();
            if (product.contains("postgres")) {
                return "postgresql";
            }
            if (product.contains("mariadb") || product.contains("mysql")) {
                return "mysql";
            }
            if (product.contains("h2")) {
                return "h2";
            }
            throw new IllegalStateException("no migrations for database " + product);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot reach the database to choose its migrations", e);
        }
    }
}
