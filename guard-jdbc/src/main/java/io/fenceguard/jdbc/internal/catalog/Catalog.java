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
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What the database says about the configuration, read once at the first connection: every fenced
 * table exists as a table and has its token column; its inheritance children and partitions are fenced
 * with it; views, rules and parents through which a write would reach its rows unseen are refused for
 * writes; routines that may write are known; {@code fenceguard_stale} is found and named
 * schema-qualified. A misfit is a {@link FencingConfigurationException} of one line naming the fix.
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
            case POSTGRESQL -> postgres(connection, config);
            case MARIADB -> mariadb(connection, config);
            case H2 -> h2(connection, config);
        };
    }

    // ---- PostgreSQL ----

    private static Facts postgres(Connection c, FencingConfig config) throws SQLException {
        TableNames names = new TableNames(SqlDialect.POSTGRESQL, false);
        List<FencedTable> fenced = new ArrayList<>(config.tables());
        List<Refused> refused = new ArrayList<>();
        Set<Long> fencedOids = new LinkedHashSet<>();
        Map<Long, String> labels = new LinkedHashMap<>();
        Set<String> schemas = new LinkedHashSet<>();
        for (FencedTable table : config.tables()) {
            String name = names.tableName(table);
            String schema = names.schemaName(table);
            List<Object[]> found = rows(c, "SELECT c.oid, n.nspname, c.relname, c.relkind FROM pg_class c"
                    + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname = ? AND (CAST(? AS text) IS NULL"
                    + " OR n.nspname = ?) AND c.relkind IN ('r', 'p', 'v', 'm', 'f')"
                    + " AND n.nspname NOT LIKE 'pg\\_temp%' ORDER BY pg_table_is_visible(c.oid) DESC, n.nspname",
                    name, schema, schema);
            if (found.isEmpty()) {
                throw missing(c, table, "SELECT n.nspname || '.' || quote_ident(c.relname) FROM pg_class c JOIN pg_namespace n"
                        + " ON n.oid = c.relnamespace WHERE lower(c.relname) = lower(?) AND c.relkind IN ('r', 'p')", name,
                        "database " + c.getCatalog() + " (search_path " + single(c, "SHOW search_path") + ")");
            }
            for (Object[] row : found) {
                long oid = ((Number) row[0]).longValue();
                String label = quoteIdent((String) row[1]) + "." + quoteIdent((String) row[2]);
                String kind = (String) row[3];
                if (!kind.equals("r") && !kind.equals("p")) {
                    throw new FencingConfigurationException("fenced table " + table.qualifiedName() + " is "
                            + (kind.equals("v") ? "a view" : kind.equals("m") ? "a materialized view" : "a foreign table")
                            + " (" + label + "); fence the table it writes to instead");
                }
                requireTokenColumn(c, table, oid, label);
                List<Object[]> rules = rows(c, "SELECT rulename FROM pg_rewrite WHERE ev_class = ? AND rulename <> '_RETURN'",
                        oid);
                if (!rules.isEmpty()) {
                    throw new FencingConfigurationException("fenced table " + label + " has the rewrite rule "
                            + rules.get(0)[0] + ", which may send its writes where the guard cannot see; drop the rule"
                            + " (DROP RULE " + rules.get(0)[0] + " ON " + label + ") or stop fencing the table");
                }
                fencedOids.add(oid);
                labels.put(oid, label);
                schemas.add((String) row[1]);
                // inheritance children and partitions hold rows of the same table: fenced with it
                for (Object[] child : rows(c, "WITH RECURSIVE tree(oid) AS (SELECT CAST(? AS oid) UNION"
                        + " SELECT i.inhrelid FROM pg_inherits i JOIN tree t ON i.inhparent = t.oid)"
                        + " SELECT c.oid, n.nspname, c.relname FROM tree JOIN pg_class c ON c.oid = tree.oid"
                        + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid <> CAST(? AS oid)", oid, oid)) {
                    long childOid = ((Number) child[0]).longValue();
                    String childLabel = quoteIdent((String) child[1]) + "." + quoteIdent((String) child[2]);
                    requireTokenColumn(c, table, childOid, childLabel);
                    if (fencedOids.add(childOid)) {
                        labels.put(childOid, childLabel);
                        fenced.add(exact((String) child[1], (String) child[2], table));
                    }
                }
                // a parent's UPDATE/DELETE reaches the rows of its children unfenced
                for (Object[] parent : rows(c, "WITH RECURSIVE up(oid) AS (SELECT CAST(? AS oid) UNION"
                        + " SELECT i.inhparent FROM pg_inherits i JOIN up u ON i.inhrelid = u.oid)"
                        + " SELECT n.nspname, c.relname FROM up JOIN pg_class c ON c.oid = up.oid"
                        + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid <> CAST(? AS oid)", oid, oid)) {
                    refused.add(new Refused(exact((String) parent[0], (String) parent[1], table), "it is a parent of"
                            + " fenced table " + label + ", so its writes reach that table's rows unfenced;"
                            + " write " + label + " itself, or fence the parent"));
                }
            }
        }
        // views and tables with rules over fenced tables, and views over those, until nothing new turns up
        Set<Long> reached = new LinkedHashSet<>(fencedOids);
        List<Long> frontier = new ArrayList<>(fencedOids);
        while (!frontier.isEmpty()) {
            List<Long> next = new ArrayList<>();
            for (long oid : frontier) {
                for (Object[] dependent : rows(c, "SELECT DISTINCT v.oid, n.nspname, v.relname, v.relkind"
                        + " FROM pg_depend d JOIN pg_rewrite r ON d.classid = CAST('pg_rewrite' AS regclass) AND d.objid = r.oid"
                        + " JOIN pg_class v ON v.oid = r.ev_class JOIN pg_namespace n ON n.oid = v.relnamespace"
                        + " WHERE d.refclassid = CAST('pg_class' AS regclass) AND d.refobjid = CAST(? AS oid)"
                        + " AND v.oid <> CAST(? AS oid)", oid, oid)) {
                    long dependentOid = ((Number) dependent[0]).longValue();
                    if (reached.add(dependentOid)) {
                        next.add(dependentOid);
                        String kind = (String) dependent[3];
                        String label = quoteIdent((String) dependent[1]) + "." + quoteIdent((String) dependent[2]);
                        labels.put(dependentOid, label);
                        refused.add(new Refused(exact((String) dependent[1], (String) dependent[2], config.tables().get(0)),
                                (kind.equals("v") || kind.equals("m") ? "it is a view over fenced table "
                                        : "it has a rule that reaches fenced table ") + labels.get(oid)
                                        + ", and a write through it would not carry the token; write "
                                        + labels.get(oid) + " itself"));
                    }
                }
            }
            frontier = next;
        }
        // triggers on other tables whose code names a fenced table: a write there may write it unfenced
        Set<String> fencedRelnames = new LinkedHashSet<>();
        for (long oid : fencedOids) {
            fencedRelnames.add(single(c, "SELECT relname FROM pg_class WHERE oid = " + oid).toLowerCase(Locale.ROOT));
        }
        for (Object[] trigger : rows(c, "SELECT c.oid, n.nspname, c.relname, t.tgname, p.prosrc FROM pg_trigger t"
                + " JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " JOIN pg_proc p ON p.oid = t.tgfoid WHERE NOT t.tgisinternal")) {
            long tableOid = ((Number) trigger[0]).longValue();
            String named = namedIn(String.valueOf(trigger[4]), fencedRelnames);
            if (!fencedOids.contains(tableOid) && named != null && reached.add(tableOid)) {
                refused.add(new Refused(exact((String) trigger[1], (String) trigger[2], config.tables().get(0)),
                        "its trigger " + trigger[3] + " runs code that names fenced table " + named
                                + ", which would write it unfenced; write " + named + " itself, or run it inside Unfenced"));
            }
        }
        String stale = staleFunction(c, schemas,
                "SELECT n.nspname, pg_function_is_visible(p.oid) FROM pg_proc p JOIN pg_namespace n"
                        + " ON n.oid = p.pronamespace WHERE p.proname = 'fenceguard_stale'", true);
        Set<String> routines = new LinkedHashSet<>();
        for (Object[] routine : rows(c, "SELECT DISTINCT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
                + " WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'"
                + " AND p.provolatile = 'v' AND p.prokind IN ('f', 'p') AND p.prorettype <> CAST('trigger' AS regtype)"
                + " AND p.proname NOT LIKE 'fenceguard\\_%' AND NOT EXISTS (SELECT 1 FROM pg_depend d"
                + " WHERE d.classid = CAST('pg_proc' AS regclass) AND d.objid = p.oid AND d.deptype = 'e')")) {
            routines.add((String) routine[0]);
        }
        routines.removeAll(allowed(config, names));
        return new Facts(stale, false, List.copyOf(fenced), List.copyOf(refused), Set.copyOf(routines));
    }

    private static void requireTokenColumn(Connection c, FencedTable table, long oid, String label) throws SQLException {
        String column = new TableNames(SqlDialect.POSTGRESQL, false).foldConfigured(table.tokenColumn(),
                table.tokenColumnQuoted());
        if (rows(c, "SELECT 1 FROM pg_attribute WHERE attrelid = CAST(? AS oid) AND attname = ? AND attnum > 0"
                + " AND NOT attisdropped", oid, column).isEmpty()) {
            throw new FencingConfigurationException("fenced table " + label + " has no token column " + column
                    + "; add it (ALTER TABLE " + label + " ADD COLUMN " + quoteIdent(column)
                    + " BIGINT) or name its column: FencedTable.of(\"" + table.qualifiedName() + "\", \"<column>\")");
        }
    }

    // ---- MariaDB / MySQL ----

    private static Facts mariadb(Connection c, FencingConfig config) throws SQLException {
        boolean caseSensitive = "0".equals(single(c, "SELECT @@lower_case_table_names"));
        TableNames names = new TableNames(SqlDialect.MARIADB, caseSensitive);
        String database = single(c, "SELECT DATABASE()");
        String compare = caseSensitive ? "BINARY " : "";
        Set<String> schemas = new LinkedHashSet<>();
        List<String[]> fencedNames = new ArrayList<>();
        for (FencedTable table : config.tables()) {
            String schema = table.schema() == null ? database : names.schemaName(table);
            if (schema == null) {
                throw new FencingConfigurationException("fenced table " + table.qualifiedName() + " has no database and"
                        + " the connection has no default database; qualify it (<database>." + table.name()
                        + ") or name a database in the JDBC URL");
            }
            List<Object[]> found = rows(c, "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES"
                    + " WHERE " + compare + "TABLE_SCHEMA = ? AND " + compare + "TABLE_NAME = ?", schema,
                    names.tableName(table));
            if (found.isEmpty()) {
                throw missing(c, table, "SELECT CONCAT(TABLE_SCHEMA, '.', TABLE_NAME) FROM information_schema.TABLES"
                        + " WHERE LOWER(TABLE_NAME) = LOWER(?) AND TABLE_SCHEMA = '" + schema.replace("'", "''") + "'",
                        names.tableName(table), "database " + schema);
            }
            String foundSchema = (String) found.get(0)[0];
            String foundName = (String) found.get(0)[1];
            String label = "`" + foundSchema + "`.`" + foundName + "`";
            if (!"BASE TABLE".equals(found.get(0)[2]) && !"SYSTEM VERSIONED".equals(found.get(0)[2])) {
                throw new FencingConfigurationException("fenced table " + table.qualifiedName() + " is a "
                        + String.valueOf(found.get(0)[2]).toLowerCase(Locale.ROOT) + " (" + label
                        + "); fence the table it writes to instead");
            }
            if (rows(c, "SELECT 1 FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?"
                    + " AND COLUMN_NAME = ?", foundSchema, foundName, table.tokenColumn()).isEmpty()) {
                throw new FencingConfigurationException("fenced table " + label + " has no token column "
                        + table.tokenColumn() + "; add it (ALTER TABLE " + label + " ADD COLUMN `" + table.tokenColumn()
                        + "` BIGINT) or name its column: FencedTable.of(\"" + table.qualifiedName() + "\", \"<column>\")");
            }
            schemas.add(foundSchema);
            fencedNames.add(new String[] {foundSchema, foundName, label});
        }
        // views over fenced tables (MariaDB stores their definitions with `db`.`table`), and views over those
        List<Refused> refused = new ArrayList<>();
        Set<String> viewSchemas = new LinkedHashSet<>(schemas);
        if (database != null) {
            viewSchemas.add(database);
        }
        List<Object[]> views = new ArrayList<>();
        for (String schema : viewSchemas) {
            views.addAll(rows(c, "SELECT TABLE_SCHEMA, TABLE_NAME, VIEW_DEFINITION FROM information_schema.VIEWS"
                    + " WHERE TABLE_SCHEMA = ?", schema));
        }
        List<String[]> frontier = new ArrayList<>(fencedNames);
        Set<String> reached = new LinkedHashSet<>();
        fencedNames.forEach(n -> reached.add(n[0] + "." + n[1]));
        while (!frontier.isEmpty()) {
            List<String[]> next = new ArrayList<>();
            for (String[] target : frontier) {
                String reference = ("`" + target[0] + "`.`" + target[1] + "`").toLowerCase(Locale.ROOT);
                for (Object[] view : views) {
                    String definition = String.valueOf(view[2]).toLowerCase(Locale.ROOT);
                    String key = view[0] + "." + view[1];
                    if (definition.contains(reference) && reached.add(key)) {
                        String label = "`" + view[0] + "`.`" + view[1] + "`";
                        next.add(new String[] {(String) view[0], (String) view[1], label});
                        refused.add(new Refused(exact((String) view[0], (String) view[1], config.tables().get(0)),
                                "it is a view over fenced table " + target[2] + ", and a write through it would not"
                                        + " carry the token; write " + target[2] + " itself"));
                    }
                }
            }
            frontier = next;
        }
        // triggers on other tables whose statement names a fenced table
        Set<String> fencedTableNames = new LinkedHashSet<>();
        fencedNames.forEach(n -> fencedTableNames.add(n[1].toLowerCase(Locale.ROOT)));
        for (String schema : viewSchemas) {
            for (Object[] trigger : rows(c, "SELECT EVENT_OBJECT_SCHEMA, EVENT_OBJECT_TABLE, TRIGGER_NAME, ACTION_STATEMENT"
                    + " FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ?", schema)) {
                String key = trigger[0] + "." + trigger[1];
                String named = namedIn(String.valueOf(trigger[3]), fencedTableNames);
                if (named != null && reached.add(key)) {
                    refused.add(new Refused(exact((String) trigger[0], (String) trigger[1], config.tables().get(0)),
                            "its trigger " + trigger[2] + " names fenced table " + named + ", which it would write"
                                    + " unfenced; write " + named + " itself, or run it inside Unfenced"));
                }
            }
        }
        List<String> lookIn = new ArrayList<>();
        if (database != null) {
            lookIn.add(database);
        }
        lookIn.addAll(schemas);
        // Only the connection's database and those of the fenced tables count: a fenceguard_stale of some other
        // database on the server belongs to another application and may be of another version.
        Set<String> staleSchemas = new LinkedHashSet<>(lookIn);
        String stale = staleFunction(c, staleSchemas,
                "SELECT ROUTINE_SCHEMA, ROUTINE_SCHEMA = DATABASE() FROM information_schema.ROUTINES"
                        + " WHERE ROUTINE_NAME = 'fenceguard_stale' AND ROUTINE_TYPE = 'FUNCTION'"
                        + " AND ROUTINE_SCHEMA IN (" + String.join(", ", Collections.nCopies(staleSchemas.size(), "?"))
                        + ")", false, staleSchemas.toArray());
        Set<String> routines = new LinkedHashSet<>();
        for (String schema : new LinkedHashSet<>(lookIn)) {
            for (Object[] routine : rows(c, "SELECT ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ?"
                    + " AND ROUTINE_NAME NOT LIKE 'fenceguard\\_%'", schema)) {
                routines.add(((String) routine[0]).toLowerCase(Locale.ROOT));
            }
        }
        routines.removeAll(allowed(config, new TableNames(SqlDialect.MARIADB, false)));
        return new Facts(stale, caseSensitive, config.tables(), List.copyOf(refused), Set.copyOf(routines));
    }

    // ---- H2 (tests) ----

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

    // ---- shared ----

    /**
     * Where {@code fenceguard_stale} is: the visible one (or the current database's), else one in a
     * fenced table's schema, else the only one, else (PostgreSQL) the one in {@code public}.
     */
    private static String staleFunction(Connection c, Set<String> preferred, String query, boolean postgres,
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
    private static String namedIn(String code, Set<String> names) {
        String lower = code.toLowerCase(Locale.ROOT);
        for (String name : names) {
            if (lower.contains(name)) {
                return name;
            }
        }
        return null;
    }

    private static FencingConfigurationException missing(Connection c, FencedTable table, String hintQuery, String hintArg,
                                                         String where) throws SQLException {
        List<Object[]> similar = rows(c, hintQuery, hintArg);
        String hint = similar.isEmpty() ? "create it, or correct the name in the configuration"
                : "did you mean " + similar.get(0)[0] + "? A name in another case must be configured quoted, as the"
                        + " database stores it";
        return new FencingConfigurationException("fenced table " + table.qualifiedName() + " does not exist in "
                + where + "; " + hint);
    }

    private static Set<String> allowed(FencingConfig config, TableNames names) {
        Set<String> allowed = new LinkedHashSet<>();
        for (String routine : config.allowedRoutines()) {
            String last = routine.contains(".") && !routine.endsWith("\"") ? routine.substring(routine.lastIndexOf('.') + 1)
                    : routine;
            allowed.add(names.fold(last));
        }
        return allowed;
    }

    private static FencedTable exact(String schema, String name, FencedTable like) {
        return FencedTable.of(quote(schema) + "." + quote(name), like.tokenColumnQuoted()
                ? quote(like.tokenColumn()) : like.tokenColumn());
    }

    private static String quote(String part) {
        return "\"" + part.replace("\"", "\"\"") + "\"";
    }

    static String quoteIdent(String part) {
        return part.matches("[a-z_][a-z0-9_$]*") ? part : quote(part);
    }

    private static String single(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    private static List<Object[]> rows(Connection c, String sql, Object... params) throws SQLException {
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
