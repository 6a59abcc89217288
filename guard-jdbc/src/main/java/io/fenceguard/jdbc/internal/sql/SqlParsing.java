package io.fenceguard.jdbc.internal.sql;

import io.fenceguard.jdbc.SqlDialect;
import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParserConstants;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.UnsupportedStatement;

/**
 * Parses one statement with the parser itself: {@code CCJSqlParserUtil.parse} starts a thread per
 * call, which costs ten times the parse.
 */
final class SqlParsing {

    private SqlParsing() {
    }

    /** The statement, or {@code null} when the text is not exactly one statement JSqlParser understands. */
    static Statement parse(String sql, SqlDialect dialect) {
        return parse(sql, dialect, dialect == SqlDialect.MARIADB);
    }

    /** @param backslashEscapes whether a backslash escapes the next character in a string, as the session reads it */
    static Statement parse(String sql, SqlDialect dialect, boolean backslashEscapes) {
        Statement statement = parse(sql, backslashEscapes, false);
        return statement != null ? statement : parse(sql, backslashEscapes, true);
    }

    private static Statement parse(String sql, boolean backslashEscapes, boolean complex) {
        try {
            CCJSqlParser parser = new CCJSqlParser(sql)
                    .withAllowComplexParsing(complex)
                    .withBackslashEscapeCharacter(backslashEscapes);
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
