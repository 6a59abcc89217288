package io.fenceguard.jdbc.internal.sql;

import io.fenceguard.jdbc.FencedTable;
import io.fenceguard.jdbc.SqlDialect;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.sf.jsqlparser.expression.operators.relational.JsonOperator;
import net.sf.jsqlparser.statement.Statement;

/**
 * What one dialect's SQL needs beyond the common rewrite: PostgreSQL's inheritance marks and jsonb
 * {@code ??} escapes, which JSqlParser cannot read; how a quoted token column is written; where MariaDB
 * wants the written table named and no cast. One shared instance per {@link SqlDialect}; immutable.
 */
final class DialectQuirks {

    private static final Map<SqlDialect, DialectQuirks> BY_DIALECT = byDialect();

    private static final String IDENTIFIER = "(?:[A-Za-z_][A-Za-z0-9_$]*|\"(?:[^\"]|\"\")+\")";
    /** {@code UPDATE [ONLY] name [*]} or {@code DELETE FROM [ONLY] name [*]} at the very start. */
    private static final Pattern INHERITANCE_TARGET = Pattern.compile("(?i)(\\s*(?:UPDATE|DELETE\\s+FROM)\\s+)(ONLY\\s+)?("
            + IDENTIFIER + "(?:\\s*\\.\\s*" + IDENTIFIER + ")?)(\\s*\\*)?(?=\\s)");

    private static final Field JSON_OPERATOR = jsonOperatorField();

    private final SqlDialect dialect;

    private DialectQuirks(SqlDialect dialect) {
        this.dialect = dialect;
    }

    static DialectQuirks of(SqlDialect dialect) {
        return BY_DIALECT.get(dialect);
    }

    /**
     * PostgreSQL's {@code UPDATE ONLY t}, {@code DELETE FROM ONLY t} and {@code t *}, which JSqlParser
     * cannot read, at the start of the canonical {@code text} (where no comment is left to hide or fake a
     * mark): the text without them, to plan instead; {@code null} when there are none.
     */
    InheritanceMarks inheritanceMarks(String text) {
        if (dialect != SqlDialect.POSTGRESQL) {
            return null;
        }
        Matcher target = INHERITANCE_TARGET.matcher(text);
        if (!target.lookingAt() || (target.group(2) == null && target.group(4) == null)) {
            return null;
        }
        return new InheritanceMarks(target.group(1) + target.group(3) + text.substring(target.end()),
                target.group(2) != null);
    }

    /**
     * A statement without its inheritance marks.
     *
     * @param stripped the text to plan
     * @param only whether it said {@code ONLY}; {@code t *} means t and its children, which is what
     *        {@code t} means, so only {@code ONLY} is put back
     */
    record InheritanceMarks(String stripped, boolean only) {

        /** The rewrite of {@link #stripped} with {@code ONLY} back in front of the target; {@code null} when it cannot be. */
        String restore(String rendered) {
            for (String head : List.of("UPDATE ", "DELETE FROM ")) {
                if (rendered.startsWith(head)) {
                    return only ? head + "ONLY " + rendered.substring(head.length()) : rendered;
                }
            }
            return null;
        }
    }

    /**
     * A statement JSqlParser could not parse as written, parsed after the dialect's own escapes are undone;
     * {@code null} when there are none or it still does not parse.
     *
     * <p>PostgreSQL's JDBC escape {@code ??} for the jsonb operators {@code ?}, {@code ?|}, {@code ?&}
     * (the driver turns {@code ??} outside literals into {@code ?}): the canonical text parsed with single
     * marks, then the operators are written back doubled so the rewrite renders them as the application
     * wrote them. The marks are found by the lexer, so a {@code ??} inside a string stays as written (the
     * driver leaves it too) and comments are gone already. Only when every such {@code ??} became one of
     * these operators.
     */
    Statement parseEscaped(String text, SessionSyntax reading) {
        if (dialect != SqlDialect.POSTGRESQL) {
            return null;
        }
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

    /** The token column as SQL: quoted the dialect's way where the configuration quoted it. */
    String tokenColumnSql(FencedTable table) {
        String column = table.tokenColumn();
        if (!table.tokenColumnQuoted() || column.matches("[a-z_][a-z0-9_]*")) {
            return column;
        }
        return dialect == SqlDialect.MARIADB ? "`" + column.replace("`", "``") + "`"
                : "\"" + column.replace("\"", "\"\"") + "\"";
    }

    /**
     * Whether an UPDATE's added SET target names its table: MariaDB needs the qualifier when joined
     * tables have the same column; PostgreSQL forbids it.
     */
    boolean qualifiesSetTarget(boolean joined) {
        return dialect == SqlDialect.MARIADB && joined;
    }

    /** Whether a token value the application gives is cast to BIGINT for the comparison (not on MariaDB). */
    boolean castsGivenToken() {
        return dialect != SqlDialect.MARIADB;
    }

    private static Map<SqlDialect, DialectQuirks> byDialect() {
        Map<SqlDialect, DialectQuirks> all = new EnumMap<>(SqlDialect.class);
        for (SqlDialect dialect : SqlDialect.values()) {
            all.put(dialect, new DialectQuirks(dialect));
        }
        return all;
    }

    private static Field jsonOperatorField() {
        try {
            Field field = JsonOperator.class.getDeclaredField("op");
            field.setAccessible(true);
            return field;
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("this JSqlParser keeps no operator field in JsonOperator", e);
        }
    }
}
