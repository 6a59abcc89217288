package io.fenceguard.jdbc.internal.catalog;

import static io.fenceguard.jdbc.internal.catalog.Catalog.exact;
import static io.fenceguard.jdbc.internal.catalog.Catalog.missing;
import static io.fenceguard.jdbc.internal.catalog.Catalog.namedIn;
import static io.fenceguard.jdbc.internal.catalog.Catalog.quoteIdent;
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
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@link Catalog}'s reading of PostgreSQL's catalog ({@code pg_class}, {@code pg_inherits}, {@code pg_rewrite},
 * {@code pg_trigger}, {@code pg_proc}): one instance per check, collecting what it found table by table.
 */
final class PostgresCatalog {

    private final Connection c;
    private final FencingConfig config;
    private final TableNames names = new TableNames(SqlDialect.POSTGRESQL, false);
    private final List<FencedTable> fenced;
    private final List<Refused> refused = new ArrayList<>();
    private final Set<Long> fencedOids = new LinkedHashSet<>();
    /**
     * The fenced relations' names as found, folded: taken with their oids, not asked for again later, since another
     * session may drop a same-named table in another schema meanwhile.
     */
    private final Set<String> fencedRelnames = new LinkedHashSet<>();
    private final Map<Long, String> labels = new LinkedHashMap<>();
    private final Set<String> schemas = new LinkedHashSet<>();

    private PostgresCatalog(Connection c, FencingConfig config) {
        this.c = c;
        this.config = config;
        this.fenced = new ArrayList<>(config.tables());
    }

    static Facts read(Connection c, FencingConfig config) throws SQLException {
        return new PostgresCatalog(c, config).read();
    }

    private Facts read() throws SQLException {
        for (FencedTable table : config.tables()) {
            for (Object[] row : find(table)) {
                fence(table, row);
            }
        }
        Set<Long> reached = refuseViewsAndRules();
        refuseTriggers(reached);
        String stale = Catalog.staleFunction(c, schemas,
                "SELECT n.nspname, pg_function_is_visible(p.oid) FROM pg_proc p JOIN pg_namespace n"
                        + " ON n.oid = p.pronamespace WHERE p.proname = 'fenceguard_stale'", true);
        return new Facts(stale, false, List.copyOf(fenced), List.copyOf(refused), Set.copyOf(writingRoutines()));
    }

    /** The relations {@code table} names: oid, schema, name, kind; the visible one first. */
    private List<Object[]> find(FencedTable table) throws SQLException {
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
        return found;
    }

    /** Fences one relation found for {@code table}, with its children; refuses writes through its parents. */
    private void fence(FencedTable table, Object[] row) throws SQLException {
        long oid = ((Number) row[0]).longValue();
        String label = quoteIdent((String) row[1]) + "." + quoteIdent((String) row[2]);
        String kind = (String) row[3];
        if (!kind.equals("r") && !kind.equals("p")) {
            throw new FencingConfigurationException("fenced table " + table.qualifiedName() + " is "
                    + (kind.equals("v") ? "a view" : kind.equals("m") ? "a materialized view" : "a foreign table")
                    + " (" + label + "); fence the table it writes to instead");
        }
        requireTokenColumn(table, oid, label);
        List<Object[]> rules = rows(c, "SELECT rulename FROM pg_rewrite WHERE ev_class = ? AND rulename <> '_RETURN'",
                oid);
        if (!rules.isEmpty()) {
            throw new FencingConfigurationException("fenced table " + label + " has the rewrite rule "
                    + rules.get(0)[0] + ", which may send its writes where the guard cannot see; drop the rule"
                    + " (DROP RULE " + rules.get(0)[0] + " ON " + label + ") or stop fencing the table");
        }
        fencedOids.add(oid);
        fencedRelnames.add(((String) row[2]).toLowerCase(Locale.ROOT));
        labels.put(oid, label);
        schemas.add((String) row[1]);
        fenceChildren(table, oid);
        refuseParents(table, oid, label);
    }

    /** Inheritance children and partitions hold rows of the same table: fenced with it. */
    private void fenceChildren(FencedTable table, long oid) throws SQLException {
        for (Object[] child : rows(c, "WITH RECURSIVE tree(oid) AS (SELECT CAST(? AS oid) UNION"
                + " SELECT i.inhrelid FROM pg_inherits i JOIN tree t ON i.inhparent = t.oid)"
                + " SELECT c.oid, n.nspname, c.relname FROM tree JOIN pg_class c ON c.oid = tree.oid"
                + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid <> CAST(? AS oid)", oid, oid)) {
            long childOid = ((Number) child[0]).longValue();
            String childLabel = quoteIdent((String) child[1]) + "." + quoteIdent((String) child[2]);
            requireTokenColumn(table, childOid, childLabel);
            if (fencedOids.add(childOid)) {
                fencedRelnames.add(((String) child[2]).toLowerCase(Locale.ROOT));
                labels.put(childOid, childLabel);
                fenced.add(exact((String) child[1], (String) child[2], table));
            }
        }
    }

    /** A parent's UPDATE/DELETE reaches the rows of its children unfenced. */
    private void refuseParents(FencedTable table, long oid, String label) throws SQLException {
        for (Object[] parent : rows(c, "WITH RECURSIVE up(oid) AS (SELECT CAST(? AS oid) UNION"
                + " SELECT i.inhparent FROM pg_inherits i JOIN up u ON i.inhrelid = u.oid)"
                + " SELECT n.nspname, c.relname FROM up JOIN pg_class c ON c.oid = up.oid"
                + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid <> CAST(? AS oid)", oid, oid)) {
            refused.add(new Refused(exact((String) parent[0], (String) parent[1], table), "it is a parent of"
                    + " fenced table " + label + ", so its writes reach that table's rows unfenced;"
                    + " write " + label + " itself, or fence the parent"));
        }
    }

    /**
     * Views and tables with rules over fenced tables, and views over those, until nothing new turns up; answers
     * every relation reached, fenced ones included.
     */
    private Set<Long> refuseViewsAndRules() throws SQLException {
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
                        refuseDependent(dependent, dependentOid, oid);
                    }
                }
            }
            frontier = next;
        }
        return reached;
    }

    private void refuseDependent(Object[] dependent, long dependentOid, long over) {
        String kind = (String) dependent[3];
        String label = quoteIdent((String) dependent[1]) + "." + quoteIdent((String) dependent[2]);
        labels.put(dependentOid, label);
        refused.add(new Refused(exact((String) dependent[1], (String) dependent[2], config.tables().get(0)),
                (kind.equals("v") || kind.equals("m") ? "it is a view over fenced table "
                        : "it has a rule that reaches fenced table ") + labels.get(over)
                        + ", and a write through it would not carry the token; write "
                        + labels.get(over) + " itself"));
    }

    /** Triggers on other tables whose code names a fenced table: a write there may write it unfenced. */
    private void refuseTriggers(Set<Long> reached) throws SQLException {
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
    }

    /** Folded names of the user's VOLATILE functions and procedures, outside the allow-list. */
    private Set<String> writingRoutines() throws SQLException {
        Set<String> routines = new LinkedHashSet<>();
        for (Object[] routine : rows(c, "SELECT DISTINCT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
                + " WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'"
                + " AND p.provolatile = 'v' AND p.prokind IN ('f', 'p') AND p.prorettype <> CAST('trigger' AS regtype)"
                + " AND p.proname NOT LIKE 'fenceguard\\_%' AND NOT EXISTS (SELECT 1 FROM pg_depend d"
                + " WHERE d.classid = CAST('pg_proc' AS regclass) AND d.objid = p.oid AND d.deptype = 'e')")) {
            routines.add((String) routine[0]);
        }
        routines.removeAll(Catalog.allowed(config, names));
        return routines;
    }

    private void requireTokenColumn(FencedTable table, long oid, String label) throws SQLException {
        String column = names.foldConfigured(table.tokenColumn(), table.tokenColumnQuoted());
        if (rows(c, "SELECT 1 FROM pg_attribute WHERE attrelid = CAST(? AS oid) AND attname = ? AND attnum > 0"
                + " AND NOT attisdropped", oid, column).isEmpty()) {
            throw new FencingConfigurationException("fenced table " + label + " has no token column " + column
                    + "; add it (ALTER TABLE " + label + " ADD COLUMN " + quoteIdent(column)
                    + " BIGINT) or name its column: FencedTable.of(\"" + table.qualifiedName() + "\", \"<column>\")");
        }
    }
}
