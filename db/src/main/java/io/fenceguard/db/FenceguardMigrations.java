package io.fenceguard.db;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;

/**
 * Creates the guard's own tables ({@code fenceguard_gate}, the {@code fenceguard_stale} function,
 * {@code fenceguard_http_high_water}, {@code fenceguard_http_nonce}, {@code fenceguard_http_idempotency},
 * {@code fenceguard_outbox}) with Flyway, apart from the application's migrations: scripts under
 * {@value #LOCATION_ROOT}/&lt;dialect&gt; (never under the application's {@code db/migration}), the
 * dialect read from the database, and their own history table {@value #HISTORY_TABLE}. So the guard's
 * versions never collide with the application's.
 *
 * <p>Run it after the application's own Flyway (and its SQL scripts): Flyway refuses to start a history in a schema that
 * holds other objects (the guard's tables) unless told to baseline, so on a fresh database the
 * application's first run must come first; the guard's run baselines itself at version 0 when the
 * schema is not empty. Spring-free; the Spring Boot auto-configuration calls it right after the
 * application's Flyway and before anything else that uses the database.
 * Pass the physical DataSource (not a fenced one: the guard's scripts need no lease, and a fenced
 * connection only adds work). Needs {@code org.flywaydb:flyway-core}, and for PostgreSQL
 * {@code flyway-database-postgresql}, for MariaDB and MySQL {@code flyway-mysql} (the Spring Boot starter
 * brings all three; only Flyway's API is used, so an application without Flyway of its own needs nothing more).
 */
public final class FenceguardMigrations {

    /** The history table of the guard's migrations, apart from the application's. */
    public static final String HISTORY_TABLE = "fenceguard_schema_history";

    /** Where the scripts are, one folder per dialect: {@code postgresql}, {@code mysql}, {@code h2}. */
    public static final String LOCATION_ROOT = "classpath:fenceguard/db/migration";

    private FenceguardMigrations() {
    }

    /**
     * Applies the guard's pending migrations for the database behind {@code dataSource}. Safe on a
     * schema that has the application's tables already, and on one that a version of fenceguard before
     * this history table migrated (the scripts are idempotent).
     *
     * @return how many migrations ran (0 when the schema is up to date)
     * @throws IllegalStateException when the database is not one fenceguard supports, Flyway or its
     *                               module for the database is missing, or a migration failed
     */
    public static int migrate(DataSource dataSource) {
        Dialect dialect = Dialect.of(dataSource);
        requireClass("org.flywaydb.core.Flyway", "org.flywaydb:flyway-core");
        if (dialect.flywayModuleClass != null) {
            requireClass(dialect.flywayModuleClass, "org.flywaydb:" + dialect.flywayModule + " for " + dialect.product);
        }
        return FlywayRun.migrate(dataSource, location(dialect), dialect.product);
    }

    /** The location of the scripts for the database behind {@code dataSource}. */
    public static String location(DataSource dataSource) {
        return location(Dialect.of(dataSource));
    }

    private static String location(Dialect dialect) {
        return LOCATION_ROOT + "/" + dialect.folder;
    }

    private static void requireClass(String className, String artifact) {
        try {
            Class.forName(className, false, FenceguardMigrations.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException("fenceguard's migrations need " + artifact + " on the classpath", e);
        }
    }

    /** Flyway's part, in a class of its own: loaded only once Flyway is known to be there. */
    private static final class FlywayRun {

        static int migrate(DataSource dataSource, String location, String product) {
            try {
                return Flyway.configure(FenceguardMigrations.class.getClassLoader())
                        .dataSource(dataSource)
                        .locations(location)
                        .table(HISTORY_TABLE)
                        // the schema usually holds the application's tables already: the guard's history starts at 0
                        .baselineOnMigrate(true)
                        .baselineVersion("0")
                        .baselineDescription("fenceguard baseline")
                        .failOnMissingLocations(true)
                        .load()
                        .migrate()
                        .migrationsExecuted;
            } catch (FlywayException e) {
                throw new IllegalStateException("fenceguard could not migrate its tables from " + location
                        + " (history " + HISTORY_TABLE + ") on " + product + ": " + e.getMessage(), e);
            }
        }
    }

    /** The script folders, by database product. */
    enum Dialect {
        POSTGRESQL("postgresql", "PostgreSQL", "flyway-database-postgresql",
                "org.flywaydb.database.postgresql.PostgreSQLDatabaseType"),
        MARIADB("mysql", "MariaDB", "flyway-mysql", "org.flywaydb.database.mysql.mariadb.MariaDBDatabaseType"),
        MYSQL("mysql", "MySQL", "flyway-mysql", "org.flywaydb.database.mysql.MySQLDatabaseType"),
        H2("h2", "H2", null, null);

        final String folder;
        final String product;
        final String flywayModule;
        final String flywayModuleClass;

        Dialect(String folder, String product, String flywayModule, String flywayModuleClass) {
            this.folder = folder;
            this.product = product;
            this.flywayModule = flywayModule;
            this.flywayModuleClass = flywayModuleClass;
        }

        static Dialect of(DataSource dataSource) {
            String product;
            try (Connection connection = dataSource.getConnection()) {
                product = connection.getMetaData().getDatabaseProductName();
            } catch (SQLException e) {
                throw new IllegalStateException("fenceguard cannot reach the database to choose its migrations: "
                        + e.getMessage(), e);
            }
            return ofProduct(product);
        }

        static Dialect ofProduct(String productName) {
            String name = productName == null ? "" : productName.toLowerCase(Locale.ROOT);
            if (name.contains("postgres")) {
                return POSTGRESQL;
            }
            if (name.contains("mariadb")) {
                return MARIADB;
            }
            if (name.contains("mysql")) {
                return MYSQL;
            }
            if (name.equals("h2")) {
                return H2;
            }
            throw new IllegalStateException("fenceguard has migrations for PostgreSQL, MariaDB/MySQL and H2, not '"
                    + productName + "'");
        }
    }
}
