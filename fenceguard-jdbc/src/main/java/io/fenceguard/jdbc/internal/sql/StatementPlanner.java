package io.fenceguard.jdbc.internal.sql;

import io.fenceguard.jdbc.FencedTable;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.FencingRefusedException.Reason;
import io.fenceguard.jdbc.SqlDialect;
import io.fenceguard.jdbc.internal.catalog.Catalog;
import io.fenceguard.jdbc.internal.catalog.TableNames;
import io.fenceguard.jdbc.sql.SqlFencePlan;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.ArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.operators.relational.JsonOperator;
import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParserConstants;
import net.sf.jsqlparser.parser.Token;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.execute.Execute;
import net.sf.jsqlparser.statement.select.FromItem;
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
 * Turns one SQL string into a {@link StatementPlan}: UPDATE, DELETE and INSERT on a fenced table are
 * rewritten through the AST; statements that write a fenced table in a way that cannot be fenced
 * are marked so; everything else passes through as written. Thread-safe; every call parses its own tree.
 */
public final class StatementPlanner {

    private static final List<Class<?>> WRITES = List.of(Update.class, Delete.class, Insert.class, Merge.class,
            Upsert.class);

    private static final String IDENTIFIER = "(?:[A-Za-z_][A-Za-z0-9_$]*|\"(?:[^\"]|\"\")+\")";
    /** {@code UPDATE [ONLY] name [*]} or {@code DELETE FROM [ONLY] name [*]} at the very start. */
    private static final Pattern INHERITANCE_TARGET = Pattern.compile("(?i)(\\s*(?:UPDATE|DELETE\\s+FROM)\\s+)(ONLY\\s+)?("
            + IDENTIFIER + "(?:\\s*\\.\\s*" + IDENTIFIER + ")?)(\\s*\\*)?(?=\\s)");

    private final SqlDialect dialect;
    private final Catalog.Facts facts;
    private final TableNames names;
    private final List<FencedTable> refusedRelations;

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
            String procedural = proceduralText(sql);
            if (procedural == null) {
                procedural = calledRoutine(sql);
            }
            if (procedural != null) {
                return StatementPlan.notRewritable(sql, null, Reason.PROCEDURAL, procedural);
            }
            return mentionsFencedTable(sql)
                    ? StatementPlan.notRewritable(sql, null, Reason.UNPARSEABLE,
                            "the guard cannot be sure how the server reads it: " + canonical.uncertain()
                                    + "; and it names a fenced table")
                    : StatementPlan.passThrough(sql, false);
        }
        String text = canonical.text();
        SessionSyntax reading = syntax.known() ? syntax : SessionSyntax.defaults(dialect);
        String procedural = proceduralStatement(text, reading);
        if (procedural != null) {
            return StatementPlan.notRewritable(sql, null, Reason.PROCEDURAL, procedural);
        }
        if (canonical.statements() > 1) {
            String routine = calledRoutine(text);
            if (routine != null) {
                return StatementPlan.notRewritable(sql, null, Reason.PROCEDURAL, routine);
            }
            return mentionsFencedTable(sql)
                    ? StatementPlan.notRewritable(sql, null, Reason.UNPARSEABLE, "it holds "
                            + canonical.statements() + " statements and names a fenced table; send one at a time")
                    : StatementPlan.passThrough(sql, false);
        }
        StatementPlan plan;
        Matcher inheritance = dialect == SqlDialect.POSTGRESQL ? INHERITANCE_TARGET.matcher(text) : null;
        if (inheritance != null && inheritance.lookingAt()
                && (inheritance.group(2) != null || inheritance.group(4) != null)) {
            plan = planWithoutInheritanceMarks(sql, text, inheritance, syntax, reading);
        } else {
            plan = planCanonical(sql, text, syntax, reading);
        }
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
        if (statement == null && dialect == SqlDialect.POSTGRESQL) {
            statement = parseJsonbEscapes(text, reading);
        }
        if (statement == null) {
            String routine = calledRoutine(text);
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
     * PostgreSQL's {@code UPDATE ONLY t}, {@code DELETE FROM ONLY t} and {@code t *}, which JSqlParser
     * cannot read, at the start of the statement: planned without the marks, then {@code ONLY} is put
     * back in front of the target ({@code t *} means t and its children, which is what {@code t} means).
     * {@code target} matched the canonical text, where no comment is left to hide or fake a mark.
     */
    private StatementPlan planWithoutInheritanceMarks(String sql, String text, Matcher target, SessionSyntax syntax,
                                                    SessionSyntax reading) {
        String stripped = target.group(1) + target.group(3) + text.substring(target.end());
        StatementPlan plan = planCanonical(sql, stripped, syntax, reading);
        boolean only = target.group(2) != null;
        if (plan.kind() == SqlFencePlan.Kind.NOT_REWRITABLE) {
            return StatementPlan.notRewritable(sql, plan.table(), plan.reason(), plan.why());
        }
        if (plan.kind() == SqlFencePlan.Kind.PASS_THROUGH) {
            return StatementPlan.passThrough(sql, false);
        }
        String rendered = plan.rewrittenSql();
        for (String head : List.of("UPDATE ", "DELETE FROM ")) {
            if (rendered.startsWith(head)) {
                String rewritten = only ? head + "ONLY " + rendered.substring(head.length()) : rendered;
                return plan.with(sql, rewritten);
            }
        }
        return StatementPlan.notRewritable(sql, plan.table(), Reason.UNSUPPORTED_FORM,
                "ONLY could not be put back into the rewrite");
    }

    /**
     * PostgreSQL's JDBC escape {@code ??} for the jsonb operators {@code ?}, {@code ?|}, {@code ?&}
     * (the driver turns {@code ??} outside literals into {@code ?}): the canonical text parsed with single
     * marks, then the operators are written back doubled so the rewrite renders them as the application
     * wrote them. The marks are found by the lexer, so a {@code ??} inside a string stays as written (the
     * driver leaves it too) and comments are gone already. Only when every such {@code ??} became one of
     * these operators; else {@code null}.
     */
    private static Statement parseJsonbEscapes(String text, SessionSyntax reading) {
        SqlLexer.Lexed lexed = SqlLexer.lex(text, SqlDialect.POSTGRESQL, reading);
        if (lexed.uncertain() != null) {
            return null;
        }
        List<SqlLexer.Token> tokens = lexed.tokens();
        StringBuilder single = new StringBuilder(text.length());
        int doubled = 0;
        int from = 0;
        for (int i = 0; i + 1 < tokens.size(); i++) {
            SqlLexer.Token mark = tokens.get(i);
            SqlLexer.Token next = tokens.get(i + 1);
            if (mark.kind() == SqlLexer.Kind.PARAMETER && next.kind() == SqlLexer.Kind.PARAMETER
                    && next.start() == mark.end()) {
                if (i + 2 < tokens.size() && tokens.get(i + 2).kind() == SqlLexer.Kind.PARAMETER
                        && tokens.get(i + 2).start() == next.end()) {
                    return null; // ??? is an escape and a parameter in an order the guard does not guess
                }
                single.append(text, from, mark.end());
                from = next.end();
                doubled++;
                i++;
            }
        }
        if (doubled == 0) {
            return null;
        }
        single.append(text, from, text.length());
        Statement statement = SqlParsing.parse(single.toString(), SqlDialect.POSTGRESQL);
        if (statement == null) {
            return null;
        }
        List<JsonOperator> operators = new ArrayList<>();
        for (Object node : AstNodes.collect(statement, List.of(JsonOperator.class))) {
            JsonOperator operator = (JsonOperator) node;
            String op = operator.getStringExpression();
            if (op.equals("?") || op.equals("?|") || op.equals("?&")) {
                operators.add(operator);
            }
        }
        if (operators.size() != doubled) {
            return null;
        }
        try {
            for (JsonOperator operator : operators) {
                JSON_OPERATOR.set(operator, "?" + operator.getStringExpression());
            }
        } catch (IllegalAccessException e) {
            return null;
        }
        return statement;
    }

    private static final java.lang.reflect.Field JSON_OPERATOR = jsonOperatorField();

    private static java.lang.reflect.Field jsonOperatorField() {
        try {
            java.lang.reflect.Field field = JsonOperator.class.getDeclaredField("op");
            field.setAccessible(true);
            return field;
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("this JSqlParser keeps no operator field in JsonOperator", e);
        }
    }

    /** The rewritten SQL for tests and diagnostics: what {@link #plan} would prepare. */
    public String rewrite(String sql) {
        StatementPlan plan = plan(sql);
        return plan.kind() == SqlFencePlan.Kind.NOT_REWRITABLE ? "REFUSED " + plan.reason() + ": " + plan.why()
                : plan.rewrittenSql();
    }

    private StatementPlan plan(String sql, Statement statement) {
        if (statement instanceof Execute && dialect != SqlDialect.H2) {
            return StatementPlan.notRewritable(sql, null, Reason.PROCEDURAL, "it runs a procedure, whose writes the guard"
                    + " cannot see; run it inside Unfenced, or allow the procedure (FencingConfig.Builder.allowRoutine)"
                    + " if it does not write fenced tables");
        }
        for (Object node : AstNodes.collect(statement, List.of(Function.class))) {
            Function function = (Function) node;
            List<String> parts = function.getMultipartName();
            String last = parts == null || parts.isEmpty() ? function.getName() : parts.get(parts.size() - 1);
            if (last != null && facts.routines().contains(names.fold(last))) {
                return StatementPlan.notRewritable(sql, null, Reason.PROCEDURAL, "it calls " + function.getName()
                        + ", a routine that may write fenced tables where the guard cannot see; run it inside Unfenced,"
                        + " or allow the routine (FencingConfig.Builder.allowRoutine) if it does not write them");
            }
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

    /** The token column as SQL: quoted the dialect's way where the configuration quoted it. */
    String tokenColumnSql(FencedTable table) {
        String column = table.tokenColumn();
        if (!table.tokenColumnQuoted() || column.matches("[a-z_][a-z0-9_]*")) {
            return column;
        }
        return dialect == SqlDialect.MARIADB ? "`" + column.replace("`", "``") + "`"
                : "\"" + column.replace("\"", "\"\"") + "\"";
    }

    /** For SQL the parser cannot read: any mention of a fenced table's name counts (fail closed). */
    private boolean mentionsFencedTable(String sql) {
        return names.mentions(sql, facts.fenced());
    }

    /**
     * For text the lexer cannot read with certainty: procedural text by its first token ({@code DO},
     * {@code CALL}) or a JDBC call escape; else {@code null}.
     */
    private String proceduralText(String sql) {
        String trimmed = sql.strip();
        if (trimmed.startsWith("{")) {
            return CALL_ESCAPE;
        }
        return proceduralWord(firstToken(sql));
    }

    /**
     * The first word of every statement of the canonical {@code text} (no comments left in it), or a
     * JDBC call escape at its start: why it is procedural, else {@code null}.
     */
    private String proceduralStatement(String text, SessionSyntax reading) {
        if (text.startsWith("{")) {
            return CALL_ESCAPE;
        }
        SqlLexer.Lexed lexed = SqlLexer.lex(text, dialect, reading);
        if (lexed.uncertain() != null) {
            return "the guard cannot be sure how the server reads it: " + lexed.uncertain();
        }
        boolean statementStart = true;
        for (SqlLexer.Token token : lexed.tokens()) {
            switch (token.kind()) {
                case WHITESPACE, COMMENT -> {
                }
                case SEMICOLON -> statementStart = true;
                default -> {
                    if (statementStart) {
                        String why = proceduralWord(token.kind() == SqlLexer.Kind.WORD ? token.text(text) : null);
                        if (why != null) {
                            return why;
                        }
                        if (token.text(text).equals("{")) {
                            return CALL_ESCAPE;
                        }
                    }
                    statementStart = false;
                }
            }
        }
        return null;
    }

    private static final String CALL_ESCAPE = "a JDBC call escape runs a routine, whose writes the guard cannot see;"
            + " run it inside Unfenced, or allow the routine (FencingConfig.Builder.allowRoutine) if it does not"
            + " write fenced tables";

    private String proceduralWord(String first) {
        if (first == null) {
            return null;
        }
        if (dialect == SqlDialect.POSTGRESQL && first.equalsIgnoreCase("DO")) {
            return "a DO block runs procedural code whose writes (EXECUTE of a name built at run time) the guard"
                    + " cannot see; run it inside Unfenced";
        }
        // H2's CALL evaluates an expression, as SELECT does (Flyway calls CALL SCHEMA())
        if (dialect != SqlDialect.H2 && (first.equalsIgnoreCase("CALL") || first.equalsIgnoreCase("EXEC")
                || first.equalsIgnoreCase("EXECUTE"))) {
            return "it runs a procedure, whose writes the guard cannot see; run it inside Unfenced, or allow"
                    + " the procedure (FencingConfig.Builder.allowRoutine) if it does not write fenced tables";
        }
        return null;
    }

    /** The first token as JSqlParser's own token manager reads it (comments skipped), or {@code null}. */
    private static String firstToken(String sql) {
        try {
            Token token = new CCJSqlParser(sql).getNextToken();
            return token == null || token.kind == CCJSqlParserConstants.EOF ? null : token.image;
        } catch (Exception | Error e) {
            if (e instanceof VirtualMachineError vme) {
                throw vme;
            }
            return null;
        }
    }

    /**
     * For text the parser does not read as one statement: why it is refused when it names a routine that
     * may write, before a parenthesis; else {@code null}.
     */
    private String calledRoutine(String sql) {
        if (facts.routines().isEmpty()) {
            return null;
        }
        String lower = sql.toLowerCase(Locale.ROOT);
        for (String routine : facts.routines()) {
            Matcher call = Pattern.compile("(?<![\\p{L}\\p{N}_$])" + Pattern.quote(routine.toLowerCase(Locale.ROOT))
                    + "[\"`]?\\s*\\(").matcher(lower);
            if (call.find()) {
                return "JSqlParser cannot parse it as one statement and it calls " + routine + ", a routine that may"
                        + " write fenced tables unseen; run it inside Unfenced, or allow the routine"
                        + " (FencingConfig.Builder.allowRoutine) if it does not write them";
            }
        }
        return null;
    }
}
