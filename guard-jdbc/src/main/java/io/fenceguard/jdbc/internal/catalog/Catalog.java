package io.fenceguard.jdbc.internal.catalog;

import io.fenceguard.jdbc.FencedTable;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.FencingConfigurationException;
import io.fenceguard.jdbc.SqlDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What the database says about the configuration, read once at the first connection: every fenced
 * table exists as a table and has its token column; its inheritance children and partitions are fenced
 * with it; views, rules and parents through which a write would reach its rows unseen are refused for
 * writes; routines that may write are known; {@code fenceguard_stale} is found and named
 * schema-qualified. A misfit is a {@link FencingConfigurationException} of one line naming the fix.
 *
 * <p>Each database's catalog is read by a class of its own ({@link PostgresCatalog}, {@link MariaDbCatalog}; H2,
 * which the tests use, only here); what they share (finding {@code fenceguard_stale}, the messages, the queries)
 * is here.
 */
public final class Catalog {

    /** The guard's function that raises the stale-token error, as the schema installs it (unqualified). */
    public static final String STALE_FUNCTION = "fenceguard_stale";

    /** A relation writes through which are refused, and why. */
    public record Refused(FencedTable relation, String why) {
    }

    /**
     * @param fenced the configured tables and, after them, their children and partitions
     * @param routines folded names of routines that may write (outside the allow-list)
     */
    public record Facts(String staleFunction, boolean mariaDbCaseSensitive, List<FencedTable> fenced, List<Refused> refused,
                 Set<String> routines) {

        /** Without a catalog check: the configuration as it is, {@code fenceguard_stale} as found on the path. */
        public static Facts unchecked(FencingConfig config) {
            return new Facts(STALE_FUNCTION, false, config.tables(), List.of(), Set.of());
        }
    }

    private Catalog() {
    }

    public static Facts read(Connection connection, SqlDialect dialect, FencingConfig config) throws SQLException {
        return switch (dialect) {
            case POSTGRESQL -> PostgresCatalog.read(connection, config);
            case MARIADB -> MariaDbCatalog.read(connection, config);
            case H2 -> h2(connection, config);
        };
    }

    private static Facts h2(Connection c, FencingConfig config) throws SQLException {
        for (FencedTable table : config.tables()) {
            boolean found = false;
            boolean column = false;
            // INFORMATION_SCHEMA, not DatabaseMetaData.getColumns: only the first lists INVISIBLE columns
            try (Statement statement = c.createStatement();
                 ResultSet columns = statement.executeQuery("SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME"
                         + " FROM INFORMATION_SCHEMA.COLUMNS")) {
                while (columns.next()) {
                    String schema = columns.getString("TABLE_SCHEMA");
                    if (columns.getString("TABLE_NAME").equalsIgnoreCase(table.name())
                            && (table.schema() == null || table.schema().equalsIgnoreCase(schema))) {
                        found = true;
                        column |= columns.getString("COLUMN_NAME").equalsIgnoreCase(table.tokenColumn());
                    }
                }
            }
            if (!found) {
                throw new FencingConfigurationException("fenced table " + table.qualifiedName() + " does not exist;"
                        + " create it, or correct the name in the configuration");
            }
            if (!column) {
                throw new FencingConfigurationException("fenced table " + table.qualifiedName() + " has no token column "
                        + table.tokenColumn() + "; add it (BIGINT) or name its column");
            }
        }
        return Facts.unchecked(config);
    }

    /**
     * Where {@code fenceguard_stale} is: the visible one (or the current database's), else one in a
     * fenced table's schema, else the only one, else (PostgreSQL) the one in {@code public}.
     */
    static String staleFunction(Connection c, Set<String> preferred, String query, boolean postgres,
            Object... params) throws SQLException {
        String where = postgres ? "schema" : "database";
        if (!postgres && preferred.isEmpty()) {
            throw new FencingConfigurationException("function " + STALE_FUNCTION + " is looked for in the connection's"
                    + " database, and the connection has none; name a database in the JDBC URL");
        }
        List<Object[]> found = rows(c, query, params);
        if (found.isEmpty()) {
            throw new FencingConfigurationException("function " + STALE_FUNCTION + " not found in "
                    + (postgres ? "the schemas of " + c.getCatalog() : "database(s) " + preferred)
                    + "; apply the guard's migrations to it"
                    + " (FenceguardMigrations.migrate(dataSource), fenceguard-db)");
        }
        String chosen = null;
        for (Object[] row : found) {
            if (Boolean.TRUE.equals(row[1]) || Long.valueOf(1).equals(row[1]) || Integer.valueOf(1).equals(row[1])) {
                chosen = (String) row[0];
            }
        }
        if (chosen == null) {
            for (Object[] row : found) {
                if (preferred.contains((String) row[0])) {
                    chosen = (String) row[0];
                    break;
                }
            }
        }
        if (chosen == null && found.size() == 1) {
            chosen = (String) found.get(0)[0];
        }
        if (chosen == null && postgres && found.stream().anyMatch(row -> "public".equals(row[0]))) {
            chosen = "public"; // where the migrations put it unless told otherwise
        }
        if (chosen == null) {
            List<String> all = found.stream().map(r -> (String) r[0]).toList();
            throw new FencingConfigurationException("function " + STALE_FUNCTION + " is not in the "
                    + (postgres ? "search_path" : "current database") + " but in several " + where + "s " + all
                    + "; apply the guard's migrations to the " + where + " of the fenced tables"
                    + (postgres ? " or put one of them on the search_path" : ""));
        }
        return (postgres ? quoteIdent(chosen) : "`" + chosen.replace("`", "``") + "`") + "."
                + STALE_FUNCTION;
    }

    /** The first of {@code names} (lower case) that {@code code} mentions, or {@code null}; errs towards a mention. */
    static String namedIn(String code, Set<String> names) {
        String lower = code.toLowerCase(Locale.ROOT);
        for (String name : names) {
            if (lower.contains(name)) {
                return name;
            }
        }
        return null;
    }

    static FencingConfigurationException missing(Connection c, FencedTable table, String hintQuery, String hintArg,
                                                         String where) throws SQLException {
        List<Object[]> similar = rows(c, hintQuery, hintArg);
        String hint = similar.isEmpty() ? "create it, or correct the name in the configuration"
                : "did you mean " + similar.get(0)[0] + "? A name in another case must be configured quoted, as the"
                        + " database stores it";
        return new FencingConfigurationException("fenced table " + table.qualifiedName() + " does not exist in "
                + where + "; " + hint);
    }

    static Set<String> allowed(FencingConfig config, TableNames names) {
        Set<String> allowed = new LinkedHashSet<>();
        for (String routine : config.allowedRoutines()) {
            String last = routine.contains(".") && !routine.endsWith("\"") ? routine.substring(routine.lastIndexOf('.') + 1)
                    : routine;
            allowed.add(names.fold(last));
        }
        return allowed;
    }

    static FencedTable exact(String schema, String name, FencedTable like) {
        return FencedTable.of(quote(schema) + "." + quote(name), like.tokenColumnQuoted()
                ? quote(like.tokenColumn()) : like.tokenColumn());
    }

    private static String quote(String part) {
        return "\"" + part.replace("\"", "\"\"") + "\"";
    }

    static String quoteIdent(String part) {
        return part.matches("[a-z_][a-z0-9_$]*") ? part : quote(part);
    }

    static String single(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    static List<Object[]> rows(Connection c, String sql, Object... params) throws SQLException {
        List<Object[]> rows = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                int columns = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    Object[] row = new Object[columns];
                    for (int i = 0; i < columns; i++) {
                        row[i] = rs.getObject(i + 1);
                    }
                    rows.add(row);
                }
            }
        }
        return rows;
    }
}
