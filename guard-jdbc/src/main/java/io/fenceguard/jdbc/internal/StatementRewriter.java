package io.fenceguard.jdbc.internal;

import io.fenceguard.jdbc.FencedTable;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.FencingRefusedException.Reason;
import io.fenceguard.jdbc.SqlDialect;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.drop.Drop;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.merge.Merge;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.truncate.Truncate;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.upsert.Upsert;

/**
 * Turns one SQL string into a {@link RewritePlan}: UPDATE, DELETE and INSERT on a fenced table are
 * rewritten through the AST; statements that write a fenced table in a way that cannot be fenced
 * are marked so; everything else passes through as written. Thread-safe; every call parses its own tree.
 */
public final class StatementRewriter {

    private static final List<Class<?>> WRITES = List.of(Update.class, Delete.class, Insert.class, Merge.class,
            Upsert.class);

    private final FencingConfig config;
    private final SqlDialect dialect;
    private final List<String> fencedNames;

    public StatementRewriter(FencingConfig config, SqlDialect dialect) {
        this.config = config;
        this.dialect = dialect;
        this.fencedNames = config.tables().stream().map(t -> t.name().toLowerCase(Locale.ROOT)).toList();
    }

    RewritePlan plan(String sql) {
        if (fencedNames.isEmpty()) {
            return RewritePlan.passThrough(sql, false);
        }
        String readDifferently = SqlParsing.readDifferently(sql, dialect);
        if (readDifferently != null && mentionsFencedTable(sql)) {
            return RewritePlan.notRewritable(sql, null, Reason.UNPARSEABLE,
                    readDifferently + ", and it names a fenced table");
        }
        Statement statement = SqlParsing.parse(sql, dialect);
        if (statement == null) {
            return mentionsFencedTable(sql)
                    ? RewritePlan.notRewritable(sql, null, Reason.UNPARSEABLE,
                            "JSqlParser cannot parse it as a single statement and it names a fenced table")
                    : RewritePlan.passThrough(sql, false);
        }
        try {
            return plan(sql, statement);
        } catch (RuntimeException e) {
            return mentionsFencedTable(sql)
                    ? RewritePlan.notRewritable(sql, null, Reason.UNSUPPORTED_FORM, "the rewrite failed: " + e)
                    : RewritePlan.passThrough(sql, false);
        }
    }

    /** The rewritten SQL for tests and diagnostics: what {@link #plan} would prepare. */
    public String rewrite(String sql) {
        RewritePlan plan = plan(sql);
        return plan.kind() == RewritePlan.Kind.NOT_REWRITABLE ? "REFUSED " + plan.reason() + ": " + plan.why()
                : plan.rewrittenSql();
    }

    private RewritePlan plan(String sql, Statement statement) {
        for (Object write : AstNodes.collect(statement, WRITES)) {
            if (write != statement) {
                Optional<FencedTable> nested = fenced(targetOf(write));
                if (nested.isPresent()) {
                    return RewritePlan.notRewritable(sql, nested.get().qualifiedName(), Reason.UNSUPPORTED_FORM,
                            "a data-modifying statement nested in another one writes fenced table "
                                    + nested.get().qualifiedName());
                }
            }
        }
        if (statement instanceof Update update) {
            return new WriteRewrite(this, sql).update(update);
        }
        if (statement instanceof Delete delete) {
            return new WriteRewrite(this, sql).delete(delete);
        }
        if (statement instanceof Insert insert) {
            return new WriteRewrite(this, sql).insert(insert);
        }
        if (statement instanceof Merge || statement instanceof Upsert) {
            Optional<FencedTable> target = fenced(targetOf(statement));
            if (target.isPresent()) {
                return RewritePlan.notRewritable(sql, target.get().qualifiedName(), Reason.UNSUPPORTED_FORM,
                        "MERGE, REPLACE and UPSERT on a fenced table cannot be fenced");
            }
        }
        if (statement instanceof Truncate truncate) {
            return refuseIfFenced(sql, allOf(truncate.getTables(), truncate.getTable()), "TRUNCATE");
        }
        if (statement instanceof Drop drop && "TABLE".equalsIgnoreCase(drop.getType())) {
            return refuseIfFenced(sql, allOf(drop.getNames(), drop.getName()), "DROP TABLE");
        }
        return RewritePlan.passThrough(sql, statement instanceof Select);
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

    private RewritePlan refuseIfFenced(String sql, List<Table> tables, String what) {
        for (Table table : tables) {
            Optional<FencedTable> fenced = fenced(table);
            if (fenced.isPresent()) {
                return RewritePlan.notRewritable(sql, fenced.get().qualifiedName(), Reason.UNSUPPORTED_FORM,
                        what + " of fenced table " + fenced.get().qualifiedName() + " cannot be fenced");
            }
        }
        return RewritePlan.passThrough(sql, false);
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
        return config.fencedTable(table.getSchemaName(), table.getName());
    }

    SqlDialect dialect() {
        return dialect;
    }

    /** For SQL the parser cannot read: any mention of a fenced table's name counts (fail closed). */
    private boolean mentionsFencedTable(String sql) {
        String lower = sql.toLowerCase(Locale.ROOT);
        for (String name : fencedNames) {
            if (lower.contains(name)) {
                return true;
            }
        }
        return false;
    }
}
