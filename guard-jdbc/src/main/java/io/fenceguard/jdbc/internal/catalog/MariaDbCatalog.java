package io.fenceguard.jdbc.internal.catalog;

import static io.fenceguard.jdbc.internal.catalog.Catalog.exact;
import static io.fenceguard.jdbc.internal.catalog.Catalog.missing;
import static io.fenceguard.jdbc.internal.catalog.Catalog.namedIn;
import static io.fenceguard.jdbc.internal.catalog.Catalog.rows;
import static io.fenceguard.jdbc.internal.catalog.Catalog.single;

import io.fenceguard.jdbc.FencedTable;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.FencingConfigurationException;
import io.fenceguard.jdbc.SqlDialect;
import io.fenceguard.jdbc.internal.catalog.Catalog.Facts;
import io.fenceguard.jdbc.internal.catalog.Catalog.Refused;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@link Catalog}'s reading of MariaDB's (and MySQL's) {@code information_schema}: one instance per check,
 * collecting what it found table by table. Views and triggers are found by the names their definitions mention.
 */
final class MariaDbCatalog {

    private final Connection c;
    private final FencingConfig config;
    private final boolean caseSensitive;
    private final TableNames names;
    private final String database;
    private final Set<String> schemas = new LinkedHashSet<>();
    /** Per fenced table: its schema, its name, and its label for messages. */
    private final List<String[]> fencedNames = new ArrayList<>();
    private final List<Refused> refused = new ArrayList<>();
    /** Schemas whose views and triggers are looked at: the fenced tables' and the connection's. */
    private final Set<String> viewSchemas = new LinkedHashSet<>();
    /** Fenced tables and relations found writing them, as {@code schema.name}. */
    private final Set<String> reached = new LinkedHashSet<>();

    private MariaDbCatalog(Connection c, FencingConfig config) throws SQLException {
        this.c = c;
        this.config = config;
        this.caseSensitive = "0".equals(single(c, "SELECT @@lower_case_table_names"));
        this.names = new TableNames(SqlDialect.MARIADB, caseSensitive);
        this.database = single(c, "SELECT DATABASE()");
    }

    static Facts read(Connection c, FencingConfig config) throws SQLException {
        return new MariaDbCatalog(c, config).read();
    }

    private Facts read() throws SQLException {
        for (FencedTable table : config.tables()) {
            fence(table);
        }
        viewSchemas.addAll(schemas);
        if (database != null) {
            viewSchemas.add(database);
        }
        fencedNames.forEach(n -> reached.add(n[0] + "." + n[1]));
        refuseViews();
        refuseTriggers();
        List<String> lookIn = new ArrayList<>();
        if (database != null) {
            lookIn.add(database);
        }
        lookIn.addAll(schemas);
        return new Facts(staleFunction(lookIn), caseSensitive, config.tables(), List.copyOf(refused),
                Set.copyOf(routines(lookIn)));
    }

    private void fence(FencedTable table) throws SQLException {
        String schema = table.schema() == null ? database : names.schemaName(table);
        if (schema == null) {
            throw new FencingConfigurationException("fenced table " + table.qualifiedName() + " has no database and"
                    + " the connection has no default database; qualify it (<database>." + table.name()
                    + ") or name a database in the JDBC URL");
        }
        String compare = caseSensitive ? "BINARY " : "";
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

    /** Views over fenced tables (MariaDB stores their definitions with `db`.`table`), and views over those. */
    private void refuseViews() throws SQLException {
        List<Object[]> views = new ArrayList<>();
        for (String schema : viewSchemas) {
            views.addAll(rows(c, "SELECT TABLE_SCHEMA, TABLE_NAME, VIEW_DEFINITION FROM information_schema.VIEWS"
                    + " WHERE TABLE_SCHEMA = ?", schema));
        }
        List<String[]> frontier = new ArrayList<>(fencedNames);
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
    }

    /** Triggers on other tables whose statement names a fenced table. */
    private void refuseTriggers() throws SQLException {
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
    }

    /**
     * Only the connection's database and those of the fenced tables count: a fenceguard_stale of some other
     * database on the server belongs to another application and may be of another version.
     */
    private String staleFunction(List<String> lookIn) throws SQLException {
        Set<String> staleSchemas = new LinkedHashSet<>(lookIn);
        return Catalog.staleFunction(c, staleSchemas,
                "SELECT ROUTINE_SCHEMA, ROUTINE_SCHEMA = DATABASE() FROM information_schema.ROUTINES"
                        + " WHERE ROUTINE_NAME = 'fenceguard_stale' AND ROUTINE_TYPE = 'FUNCTION'"
                        + " AND ROUTINE_SCHEMA IN (" + String.join(", ", Collections.nCopies(staleSchemas.size(), "?"))
                        + ")", false, staleSchemas.toArray());
    }

    /** Folded names of every stored routine in {@code lookIn} (any may write), outside the allow-list. */
    private Set<String> routines(List<String> lookIn) throws SQLException {
        Set<String> routines = new LinkedHashSet<>();
        for (String schema : new LinkedHashSet<>(lookIn)) {
            for (Object[] routine : rows(c, "SELECT ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ?"
                    + " AND ROUTINE_NAME NOT LIKE 'fenceguard\\_%'", schema)) {
                routines.add(((String) routine[0]).toLowerCase(Locale.ROOT));
            }
        }
        routines.removeAll(Catalog.allowed(config, new TableNames(SqlDialect.MARIADB, false)));
        return routines;
    }
}
