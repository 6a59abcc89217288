package io.fenceguard.jdbc.internal;

import io.fenceguard.jdbc.SqlDialect;
import java.util.regex.Pattern;
import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParserConstants;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.UnsupportedStatement;

/**
 * Parses one statement with the parser itself: {@code CCJSqlParserUtil.parse} starts a thread per
 * call, which costs ten times the parse.
 */
final class SqlParsing {

    private static final Pattern ESCAPE_STRING = Pattern.compile("(?i)(?<![\\p{L}\\p{N}_$'])e'");

    private SqlParsing() {
    }

    /**
     * Why the database may read {@code sql} differently from JSqlParser, or {@code null}: MariaDB runs
     * the content of executable comments ({@code /*! ... *}{@code /}), which the parser skips, and a
     * PostgreSQL {@code E'...'} string ends at another quote when it contains a backslash. Passing such
     * text through as parsed could send a write the rewriter never saw.
     */
    static String readDifferently(String sql, SqlDialect dialect) {
        if (dialect == SqlDialect.MARIADB && (sql.contains("/*!") || sql.contains("/*M!") || sql.contains("/*m!"))) {
            return "MariaDB executes the content of /*! ... */ comments, which the parser skips";
        }
        if (dialect == SqlDialect.POSTGRESQL && sql.indexOf('\\') >= 0 && ESCAPE_STRING.matcher(sql).find()) {
            return "PostgreSQL reads backslash escapes in E'...' strings, which the parser does not";
        }
        return null;
    }

    /** The statement, or {@code null} when the text is not exactly one statement JSqlParser understands. */
    static Statement parse(String sql, SqlDialect dialect) {
        Statement statement = parse(sql, dialect, false);
        return statement != null ? statement : parse(sql, dialect, true);
    }

    private static Statement parse(String sql, SqlDialect dialect, boolean complex) {
        try {
            CCJSqlParser parser = new CCJSqlParser(sql)
                    .withAllowComplexParsing(complex)
                    .withBackslashEscapeCharacter(dialect == SqlDialect.MARIADB);
            Statement statement = parser.Statement();
            // Statement() stops after the first statement; anything after it must not slip through.
            if (statement == null || statement instanceof UnsupportedStatement
                    || parser.getNextToken().kind != CCJSqlParserConstants.EOF) {
                return null;
            }
            return statement;
        } catch (Exception | Error e) {
            if (e instanceof VirtualMachineError vme) {
                throw vme;
            }
            return null;
        }
    }
}
