package io.fenceguard.jdbc;

import java.util.Locale;

/** The databases whose rewrite and high-water claims fenceguard knows. */
public enum SqlDialect {
    POSTGRESQL,
    /** MariaDB and MySQL. */
    MARIADB,
    H2;

    /** From {@link java.sql.DatabaseMetaData#getDatabaseProductName()}. */
    public static SqlDialect fromProductName(String productName) {
        String name = productName == null ? "" : productName.toLowerCase(Locale.ROOT);
        if (name.contains("postgres")) {
            return POSTGRESQL;
        }
        if (name.contains("mariadb") || name.contains("mysql")) {
            return MARIADB;
        }
        if (name.equals("h2")) {
            return H2;
        }
        throw new IllegalArgumentException("fenceguard supports PostgreSQL, MariaDB/MySQL and H2, not '"
                + productName + "'");
    }
}
