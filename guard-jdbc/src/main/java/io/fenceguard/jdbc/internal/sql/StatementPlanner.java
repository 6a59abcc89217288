package io.fenceguard.jdbc.internal.sql;

import io.fenceguard.jdbc.FencedTable;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.FencingRefusedException.Reason;
import io.fenceguard.jdbc.SqlDialect;
import io.fenceguard.jdbc.internal.catalog.Catalog;
import io.fenceguard.jdbc.internal.catalog.TableNames;
import io.fenceguard.jdbc.sql.SqlFencePlan;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.drop.Drop;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.merge.Merge;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.truncate.Truncate;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.upsert.Upsert;

/**
 * Turns one SQL string into a {@link StatementPlan}: UPDATE, DELETE and INSERT on a fenced table are
 * rewritten through the AST ({@link WriteRewriter}); statements that write a fenced table in a way that
 * cannot be fenced are marked so, procedural ones among them ({@link ProceduralStatements}); everything
 * else passes through as written. What one dialect needs beyond that is in {@link DialectQuirks}.
 * Thread-safe; every call parses its own tree.
 */
public final class StatementPlanner {

    private static final List<Class<?>> WRITES = List.of(Update.class, Delete.class, Insert.class, Merge.class,
            Upsert.class);

    private final SqlDialect dialect;
    private final Catalog.Facts facts;
    private final TableNames names;
    private final List<FencedTable> refusedRelations;
    private final DialectQuirks quirks;
    private final ProceduralStatements procedural;

    /** Without a catalog: the configured tables as they are (tests, diagnostics). */
    public StatementPlanner(FencingConfig config, SqlDialect dialect) {
        this(dialect, Catalog.Facts.unchecked(config));
    }

    /** With what the catalog check found. */
    public StatementPlanner(SqlDialect dialect, Catalog.Facts facts) {
        this.dialect = dialect;
        this.facts = facts;
        this.names = new TableNames(dialect, facts.mariaDbCaseSensitive());
        this.refusedRelations = facts.refused().stream().map(Catalog.Refused::relation).toList();
        this.quirks = DialectQuirks.of(dialect);
        this.procedural = new ProceduralStatements(dialect, facts.routines(), names);
    }

    /** The plan for a session with the dialect's default settings. */
    public StatementPlan plan(String sql) {
        return plan(sql, SessionSyntax.defaults(dialect));
    }

    /**
     * The plan for {@code sql} as a session with {@code syntax} reads it. The {@link SqlLexer} decides
     * comments, strings and statement boundaries as the server does; every check below (procedural
     * statements, PostgreSQL's inheritance marks, the jsonb {@code ??} escapes) and JSqlParser work on the
     * {@link CanonicalSql} text, which the parser and the server read alike; a rewrite that would drop
     * anything of the statement is refused.
     */
    public StatementPlan plan(String sql, SessionSyntax syntax) {
        if (facts.fenced().isEmpty()) {
            return StatementPlan.passThrough(sql, false);
        }
        CanonicalSql canonical = CanonicalSql.of(sql, dialect, syntax);
        if (!canonical.isCertain()) {
            String why = procedural.inUncertainText(sql);
            if (why != null) {
                return StatementPlan.notRewritable(sql, null, Reason.PROCEDURAL, why);
            }
            return mentionsFencedTable(sql)
                    ? StatementPlan.notRewritable(sql, null, Reason.UNPARSEABLE,
                            "the guard cannot be sure how the server reads it: " + canonical.uncertain()
                                    + "; and it names a fenced table")
                    : StatementPlan.passThrough(sql, false);
        }
        String text = canonical.text();
        SessionSyntax reading = syntax.known() ? syntax : SessionSyntax.defaults(dialect);
        String why = procedural.inStatements(text, reading);
        if (why != null) {
            return StatementPlan.notRewritable(sql, null, Reason.PROCEDURAL, why);
        }
        if (canonical.statements() > 1) {
            String routine = procedural.calledRoutine(text);
            if (routine != null) {
                return StatementPlan.notRewritable(sql, null, Reason.PROCEDURAL, routine);
            }
            return mentionsFencedTable(sql)
                    ? StatementPlan.notRewritable(sql, null, Reason.UNPARSEABLE, "it holds "
                            + canonical.statements() + " statements and names a fenced table; send one at a time")
                    : StatementPlan.passThrough(sql, false);
        }
        DialectQuirks.InheritanceMarks marks = quirks.inheritanceMarks(text);
        StatementPlan plan = marks != null ? planWithoutInheritanceMarks(sql, marks, syntax, reading)
                : planCanonical(sql, text, syntax, reading);
        if (plan.kind() == SqlFencePlan.Kind.REWRITTEN) {
            String dropped = canonical.dropsSomethingIn(plan.rewrittenSql(), dialect, syntax);
            if (dropped != null) {
                return StatementPlan.notRewritable(sql, plan.table(), Reason.UNSUPPORTED_FORM, dropped);
            }
        }
        return plan;
    }

    /** The plan of one statement's canonical {@code text} (what JSqlParser parses) for the application's {@code sql}. */
    private StatementPlan planCanonical(String sql, String text, SessionSyntax syntax, SessionSyntax reading) {
        Statement statement = SqlParsing.parse(text, dialect, dialect == SqlDialect.MARIADB && syntax.backslashEscapes());
        if (statement == null) {
            statement = quirks.parseEscaped(text, reading);
        }
        if (statement == null) {
            String routine = procedural.calledRoutine(text);
            if (routine != null) {
                return StatementPlan.notRewritable(sql, null, Reason.PROCEDURAL, routine);
            }
            return mentionsFencedTable(sql)
                    ? StatementPlan.notRewritable(sql, null, Reason.UNPARSEABLE,
                            "JSqlParser cannot parse it as a single statement and it names a fenced table")
                    : StatementPlan.passThrough(sql, false);
        }
        try {
            return plan(sql, statement);
        } catch (RuntimeException e) {
            return mentionsFencedTable(sql)
                    ? StatementPlan.notRewritable(sql, null, Reason.UNSUPPORTED_FORM, "the rewrite failed: " + e)
                    : StatementPlan.passThrough(sql, false);
        }
    }

    /**
     * A statement with PostgreSQL's inheritance marks: planned without them, then {@code ONLY} is put back
     * in front of the target.
     */
    private StatementPlan planWithoutInheritanceMarks(String sql, DialectQuirks.InheritanceMarks marks,
                                                      SessionSyntax syntax, SessionSyntax reading) {
        StatementPlan plan = planCanonical(sql, marks.stripped(), syntax, reading);
        if (plan.kind() == SqlFencePlan.Kind.NOT_REWRITABLE) {
            return StatementPlan.notRewritable(sql, plan.table(), plan.reason(), plan.why());
        }
        if (plan.kind() == SqlFencePlan.Kind.PASS_THROUGH) {
            return StatementPlan.passThrough(sql, false);
        }
        String restored = marks.restore(plan.rewrittenSql());
        if (restored == null) {
            return StatementPlan.notRewritable(sql, plan.table(), Reason.UNSUPPORTED_FORM,
                    "ONLY could not be put back into the rewrite");
        }
        return plan.with(sql, restored);
    }

    /** The rewritten SQL for tests and diagnostics: what {@link #plan} would prepare. */
    public String rewrite(String sql) {
        StatementPlan plan = plan(sql);
        return plan.kind() == SqlFencePlan.Kind.NOT_REWRITABLE ? "REFUSED " + plan.reason() + ": " + plan.why()
                : plan.rewrittenSql();
    }

    private StatementPlan plan(String sql, Statement statement) {
        String runsCode = procedural.inParsed(statement);
        if (runsCode != null) {
            return StatementPlan.notRewritable(sql, null, Reason.PROCEDURAL, runsCode);
        }
        for (Object write : AstNodes.collect(statement, WRITES)) {
            for (Table written : writtenTables(write)) {
                Optional<Catalog.Refused> refused = refused(written);
                if (refused.isPresent()) {
                    return StatementPlan.notRewritable(sql, refused.get().relation().qualifiedName(),
                            Reason.UNSUPPORTED_FORM, "it writes " + refused.get().relation().qualifiedName() + ": "
                                    + refused.get().why());
                }
            }
        }
        for (Object write : AstNodes.collect(statement, WRITES)) {
            if (write != statement) {
                Optional<FencedTable> nested = fenced(targetOf(write));
                if (nested.isPresent()) {
                    return StatementPlan.notRewritable(sql, nested.get().qualifiedName(), Reason.UNSUPPORTED_FORM,
                            "a data-modifying statement nested in another one writes fenced table "
                                    + nested.get().qualifiedName());
                }
            }
        }
        if (statement instanceof Update update) {
            return new WriteRewriter(this, sql).update(update);
        }
        if (statement instanceof Delete delete) {
            return new WriteRewriter(this, sql).delete(delete);
        }
        if (statement instanceof Insert insert) {
            return new WriteRewriter(this, sql).insert(insert);
        }
        if (statement instanceof Merge || statement instanceof Upsert) {
            Optional<FencedTable> target = fenced(targetOf(statement));
            if (target.isPresent()) {
                return StatementPlan.notRewritable(sql, target.get().qualifiedName(), Reason.UNSUPPORTED_FORM,
                        "MERGE, REPLACE and UPSERT on a fenced table cannot be fenced");
            }
        }
        if (statement instanceof Truncate truncate) {
            return refuseIfFenced(sql, allOf(truncate.getTables(), truncate.getTable()), "TRUNCATE");
        }
        if (statement instanceof Drop drop && "TABLE".equalsIgnoreCase(drop.getType())) {
            return refuseIfFenced(sql, allOf(drop.getNames(), drop.getName()), "DROP TABLE");
        }
        return StatementPlan.passThrough(sql, statement instanceof Select);
    }

    /** Every table a TRUNCATE or DROP names, not only the first. */
    private static List<Table> allOf(List<Table> names, Table first) {
        List<Table> all = new java.util.ArrayList<>();
        if (names != null) {
            all.addAll(names);
        }
        all.add(first);
        return all;
    }

    private StatementPlan refuseIfFenced(String sql, List<Table> tables, String what) {
        for (Table table : tables) {
            Optional<FencedTable> fenced = fenced(table);
            if (fenced.isPresent()) {
                return StatementPlan.notRewritable(sql, fenced.get().qualifiedName(), Reason.UNSUPPORTED_FORM,
                        what + " of fenced table " + fenced.get().qualifiedName() + " cannot be fenced");
            }
        }
        return StatementPlan.passThrough(sql, false);
    }

    private static Table targetOf(Object write) {
        if (write instanceof Update update) {
            return update.getTable();
        }
        if (write instanceof Delete delete) {
            return delete.getTable();
        }
        if (write instanceof Insert insert) {
            return insert.getTable();
        }
        if (write instanceof Merge merge) {
            return merge.getTable();
        }
        if (write instanceof Upsert upsert) {
            return upsert.getTable();
        }
        return null;
    }

    Optional<FencedTable> fenced(Table table) {
        if (table == null || table.getName() == null) {
            return Optional.empty();
        }
        return names.match(facts.fenced(), table.getSchemaName(), table.getName());
    }

    private Optional<Catalog.Refused> refused(Table table) {
        if (table == null || table.getName() == null || refusedRelations.isEmpty()) {
            return Optional.empty();
        }
        return names.match(refusedRelations, table.getSchemaName(), table.getName())
                .map(relation -> facts.refused().get(refusedRelations.indexOf(relation)));
    }

    /** Every table a write statement names as written to (its target, joined targets, DELETE's table list). */
    private static List<Table> writtenTables(Object write) {
        List<Table> tables = new ArrayList<>();
        tables.add(targetOf(write));
        if (write instanceof Update update && update.getStartJoins() != null) {
            update.getStartJoins().forEach(join -> addTable(tables, join.getFromItem()));
        }
        if (write instanceof Update update && update.getJoins() != null) {
            update.getJoins().forEach(join -> addTable(tables, join.getFromItem()));
        }
        if (write instanceof Delete delete) {
            if (delete.getTables() != null) {
                tables.addAll(delete.getTables());
            }
            if (delete.getJoins() != null) {
                delete.getJoins().forEach(join -> addTable(tables, join.getFromItem()));
            }
        }
        return tables;
    }

    private static void addTable(List<Table> tables, FromItem item) {
        if (item instanceof Table table) {
            tables.add(table);
        }
    }

    public SqlDialect dialect() {
        return dialect;
    }

    /** The schema-qualified stale function, as the catalog found it. */
    public String staleFunction() {
        return facts.staleFunction();
    }

    /** What the dialect's SQL needs beyond the common rewrite. */
    DialectQuirks quirks() {
        return quirks;
    }

    /** For SQL the parser cannot read: any mention of a fenced table's name counts (fail closed). */
    private boolean mentionsFencedTable(String sql) {
        return names.mentions(sql, facts.fenced());
    }
}
