package io.fenceguard.db;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;

/**
 * Creates the guard's own tables ({@code fenceguard_gate}, the {@code fenceguard_stale} function,
 * {@code fenceguard_http_high_water}, {@code fenceguard_http_nonce}, {@code fenceguard_http_idempotency},
 * {@code fenceguard_outbox}) with Flyway, apart from the application's migrations: scripts under
 * {@value #LOCATION_ROOT}/&lt;dialect&gt;/&lt;feature&gt; (never under the application's {@code db/migration}), the
 * dialect read from the database, and their own history table {@value #HISTORY_TABLE}. So the guard's
 * versions never collide with the application's.
 *
 * <p>The scripts are grouped by the {@link Feature} that needs their tables, and
 * {@link #migrate(DataSource, Set)} applies only the groups asked for: an application that fences rows gets
 * no HTTP or outbox tables. The versions are one sequence over all groups in one history, so a group taken
 * on later is applied out of order and the groups not asked for are left out of validation; the scripts
 * never change once released (their Flyway checksums are in the histories of existing databases).
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

    /** The features whose tables the guard creates, each a folder of scripts under the dialect's. */
    public enum Feature {
        /**
         * Row and high-water fencing (fenceguard-jdbc): the function {@code fenceguard_stale}, through which a
         * rewritten write refuses a stale token, and the high-water table {@code fenceguard_gate} (one script, V1).
         */
        SQL_FENCING("sql-fencing"),
        /**
         * Admission in the database (HTTP endpoints and message consumers with the JDBC high-water store):
         * {@code fenceguard_http_high_water}, {@code fenceguard_http_nonce}, {@code fenceguard_http_idempotency}
         * and on PostgreSQL {@code fenceguard_http_nonce_since} (V2, V3, V4, V6, V7).
         */
        ADMISSION("admission"),
        /** The transactional outbox (fenceguard-messaging): {@code fenceguard_outbox} (V5). */
        OUTBOX("outbox");

        private final String folder;

        Feature(String folder) {
            this.folder = folder;
        }

        /** The name of its folder of scripts, also its name in {@code fenceguard.db.features}. */
        public String folder() {
            return folder;
        }

        /**
         * The feature named {@code name} (its folder name, or the constant's name in any case).
         *
         * @throws IllegalArgumentException naming the features there are
         */
        public static Feature named(String name) {
            String normalized = name == null ? "" : name.trim().toLowerCase(Locale.ROOT).replace('_', '-');
            for (Feature feature : values()) {
                if (feature.folder.equals(normalized)) {
                    return feature;
                }
            }
            throw new IllegalArgumentException("no fenceguard table feature '" + name + "'; there are "
                    + Arrays.stream(values()).map(Feature::folder).toList());
        }
    }

    private FenceguardMigrations() {
    }

    /**
     * Applies the guard's pending migrations of every {@link Feature} for the database behind
     * {@code dataSource}; see {@link #migrate(DataSource, Set)}.
     */
    public static int migrate(DataSource dataSource) {
        return migrate(dataSource, EnumSet.allOf(Feature.class));
    }

    /**
     * Applies the guard's pending migrations of {@code features} for the database behind {@code dataSource}:
     * only their tables are created. Safe on a schema that has the application's tables already, on one
     * that a version of fenceguard before this history table migrated (the scripts are idempotent), and on
     * one whose history holds features not asked for now (they stay as they are). No feature: nothing runs,
     * and no history table is created.
     *
     * @return how many migrations ran (0 when the schema is up to date)
     * @throws IllegalStateException when the database is not one fenceguard supports, Flyway or its
     *                               module for the database is missing, or a migration failed
     */
    public static int migrate(DataSource dataSource, Set<Feature> features) {
        if (features.isEmpty()) {
            return 0;
        }
        Dialect dialect = Dialect.of(dataSource);
        requireClass("org.flywaydb.core.Flyway", "org.flywaydb:flyway-core");
        if (dialect.flywayModuleClass != null) {
            requireClass(dialect.flywayModuleClass, "org.flywaydb:" + dialect.flywayModule + " for " + dialect.product);
        }
        List<String> locations = EnumSet.copyOf(features).stream()
                .map(feature -> location(dialect) + "/" + feature.folder).toList();
        return FlywayRun.migrate(dataSource, locations, dialect.product);
    }

    /** The location of the scripts of every feature for the database behind {@code dataSource}. */
    public static String location(DataSource dataSource) {
        return location(Dialect.of(dataSource));
    }

    /** The location of the scripts of {@code feature} for the database behind {@code dataSource}. */
    public static String location(DataSource dataSource, Feature feature) {
        return location(Dialect.of(dataSource)) + "/" + feature.folder;
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

        static int migrate(DataSource dataSource, List<String> locations, String product) {
            try {
                return Flyway.configure(FenceguardMigrations.class.getClassLoader())
                        .dataSource(dataSource)
                        .locations(locations.toArray(String[]::new))
                        .table(HISTORY_TABLE)
                        // the schema usually holds the application's tables already: the guard's history starts at 0
                        .baselineOnMigrate(true)
                        .baselineVersion("0")
                        .baselineDescription("fenceguard baseline")
                        .failOnMissingLocations(true)
                        // a feature taken on later has versions below the ones applied: apply them all the same
                        .outOfOrder(true)
                        // applied scripts of features not asked for now, and of a newer fenceguard, are no error
                        .ignoreMigrationPatterns("*:missing", "*:future")
                        .load()
                        .migrate()
                        .migrationsExecuted;
            } catch (FlywayException e) {
                throw new IllegalStateException("fenceguard could not migrate its tables from " + locations
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
