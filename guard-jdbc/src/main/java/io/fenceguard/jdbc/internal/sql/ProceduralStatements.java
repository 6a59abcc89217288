package io.fenceguard.jdbc.internal.sql;

import io.fenceguard.jdbc.SqlDialect;
import io.fenceguard.jdbc.internal.catalog.TableNames;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParserConstants;
import net.sf.jsqlparser.parser.Token;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.execute.Execute;

/**
 * Statements that run code whose writes the guard cannot see: a PostgreSQL {@code DO} block, a
 * procedure call ({@code CALL}, {@code EXEC}, a JDBC call escape) and a call of a routine that may write
 * fenced tables (the catalog's list, less the allowed ones). Each method says why a statement is one of
 * them, or {@code null}; the planner refuses it as {@code PROCEDURAL}. Thread-safe.
 */
final class ProceduralStatements {

    private static final String CALL_ESCAPE = "a JDBC call escape runs a routine, whose writes the guard cannot see;"
            + " run it inside Unfenced, or allow the routine (FencingConfig.Builder.allowRoutine) if it does not"
            + " write fenced tables";

    private final SqlDialect dialect;
    /** Folded names of the routines that may write. */
    private final Set<String> routines;
    private final TableNames names;

    ProceduralStatements(SqlDialect dialect, Set<String> routines, TableNames names) {
        this.dialect = dialect;
        this.routines = routines;
        this.names = names;
    }

    /**
     * For text the lexer cannot read with certainty: procedural text by its first token ({@code DO},
     * {@code CALL}) or a JDBC call escape, else a call of a routine that may write; else {@code null}.
     */
    String inUncertainText(String sql) {
        String trimmed = sql.strip();
        if (trimmed.startsWith("{")) {
            return CALL_ESCAPE;
        }
        String why = procedural(firstToken(sql));
        return why != null ? why : calledRoutine(sql);
    }

    /**
     * The first word of every statement of the canonical {@code text} (no comments left in it), or a
     * JDBC call escape at its start: why it is procedural, else {@code null}.
     */
    String inStatements(String text, SessionSyntax reading) {
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
                        String why = procedural(token.kind() == SqlLexer.Kind.WORD ? token.text(text) : null);
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

    /** In a parsed statement: a procedure run ({@code EXECUTE}), or a call of a routine that may write. */
    String inParsed(Statement statement) {
        if (statement instanceof Execute && dialect != SqlDialect.H2) {
            return "it runs a procedure, whose writes the guard cannot see; run it inside Unfenced, or allow the"
                    + " procedure (FencingConfig.Builder.allowRoutine) if it does not write fenced tables";
        }
        for (Object node : AstNodes.collect(statement, List.of(Function.class))) {
            Function function = (Function) node;
            List<String> parts = function.getMultipartName();
            String last = parts == null || parts.isEmpty() ? function.getName() : parts.get(parts.size() - 1);
            if (last != null && routines.contains(names.fold(last))) {
                return "it calls " + function.getName() + ", a routine that may write fenced tables where the guard"
                        + " cannot see; run it inside Unfenced, or allow the routine"
                        + " (FencingConfig.Builder.allowRoutine) if it does not write them";
            }
        }
        return null;
    }

    /**
     * For text the parser does not read as one statement: why it is refused when it names a routine that
     * may write, before a parenthesis; else {@code null}.
     */
    String calledRoutine(String sql) {
        if (routines.isEmpty()) {
            return null;
        }
        String lower = sql.toLowerCase(Locale.ROOT);
        for (String routine : routines) {
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

    private String procedural(String firstWord) {
        if (firstWord == null) {
            return null;
        }
        if (dialect == SqlDialect.POSTGRESQL && firstWord.equalsIgnoreCase("DO")) {
            return "a DO block runs procedural code whose writes (EXECUTE of a name built at run time) the guard"
                    + " cannot see; run it inside Unfenced";
        }
        // H2's CALL evaluates an expression, as SELECT does (Flyway calls CALL SCHEMA())
        if (dialect != SqlDialect.H2 && (firstWord.equalsIgnoreCase("CALL") || firstWord.equalsIgnoreCase("EXEC")
                || firstWord.equalsIgnoreCase("EXECUTE"))) {
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
}
