package io.fenceguard.jdbc.internal.sql;

import io.fenceguard.jdbc.SqlDialect;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits SQL text into tokens the way the server does, for one dialect and one {@link SessionSyntax}:
 * where comments, strings and quoted identifiers begin and end, and where a statement ends. JSqlParser
 * stays the parser; this lexer decides what the server will read, so that the text given to the parser
 * ({@link CanonicalSql}) means to the parser what the original means to the server.
 *
 * <ul>
 *   <li>MariaDB: {@code --} starts a comment only when a space or control character (or the end) follows;
 *   {@code #} comments; {@code /*!} and {@code /*M!} comments are executed by the server; backslash
 *   escapes in strings unless {@code NO_BACKSLASH_ESCAPES}; {@code "…"} is a string unless
 *   {@code ANSI_QUOTES}; block comments do not nest.</li>
 *   <li>PostgreSQL: {@code --} comments; block comments nest; {@code '…'} takes backslash escapes when
 *   {@code standard_conforming_strings} is off, {@code E'…'} always; dollar quotes {@code $tag$…$tag$}.</li>
 *   <li>H2: {@code --} and {@code //} comments, block comments, {@code '…'} without escapes.</li>
 * </ul>
 */
final class SqlLexer {

    enum Kind {
        WORD, NUMBER, STRING, QUOTED_IDENTIFIER, PARAMETER, SEMICOLON, OPERATOR, WHITESPACE, COMMENT,
        /** MariaDB {@code /*! … *}{@code /}: the server runs what is inside. */
        EXECUTABLE_COMMENT
    }

    /**
     * One token. {@code style} tells how a STRING is written: {@code '} plain, {@code E} PostgreSQL
     * escape string, {@code $} dollar quote, {@code "} MariaDB double-quoted string, {@code P} any
     * other prefixed form (N'…', X'…', _utf8'…', U&amp;'…'); {@code body} is the text between the quotes.
     */
    record Token(Kind kind, int start, int end, char style, String body) {
        String text(String sql) {
            return sql.substring(start, end);
        }
    }

    /** The tokens, or why the text cannot be read with certainty ({@code uncertain} not null). */
    record Lexed(List<Token> tokens, String uncertain) {
    }

    private final String sql;
    private final SqlDialect dialect;
    private final SessionSyntax syntax;
    private final List<Token> tokens = new ArrayList<>();
    private int at;

    private SqlLexer(String sql, SqlDialect dialect, SessionSyntax syntax) {
        this.sql = sql;
        this.dialect = dialect;
        this.syntax = syntax;
    }

    static Lexed lex(String sql, SqlDialect dialect, SessionSyntax syntax) {
        return new SqlLexer(sql, dialect, syntax).run();
    }

    private Lexed run() {
        int n = sql.length();
        while (at < n) {
            int start = at;
            char c = sql.charAt(at);
            String failure;
            if (Character.isWhitespace(c)) {
                while (at < n && Character.isWhitespace(sql.charAt(at))) {
                    at++;
                }
                add(Kind.WHITESPACE, start);
                continue;
            }
            if (c == '-' && peek(1) == '-' && lineCommentAfterDashes()) {
                lineComment(start);
                continue;
            }
            if (c == '#' && dialect == SqlDialect.MARIADB) {
                lineComment(start);
                continue;
            }
            if (c == '/' && peek(1) == '/' && dialect == SqlDialect.H2) {
                lineComment(start);
                continue;
            }
            if (c == '/' && peek(1) == '*') {
                failure = blockComment(start);
                if (failure != null) {
                    return uncertain(failure);
                }
                continue;
            }
            if (c == '\'') {
                failure = quoted(start, start + 1, '\'', defaultBackslash(), '\'');
                if (failure != null) {
                    return uncertain(failure);
                }
                continue;
            }
            if (c == '"') {
                boolean identifier = dialect != SqlDialect.MARIADB || syntax.ansiQuotes();
                failure = identifier ? identifier(start, start, '"')
                        : quoted(start, start + 1, '"', syntax.backslashEscapes(), '"');
                if (failure != null) {
                    return uncertain(failure);
                }
                continue;
            }
            if (c == '`' && dialect == SqlDialect.MARIADB) {
                failure = identifier(start, start, '`');
                if (failure != null) {
                    return uncertain(failure);
                }
                continue;
            }
            if (c == '$' && dialect == SqlDialect.POSTGRESQL) {
                int tagEnd = dollarTagEnd(at);
                if (tagEnd > 0) {
                    failure = dollarQuoted(start, tagEnd);
                    if (failure != null) {
                        return uncertain(failure);
                    }
                    continue;
                }
            }
            if (isWordStart(c)) {
                failure = wordOrPrefixedString(start);
                if (failure != null) {
                    return uncertain(failure);
                }
                continue;
            }
            if (Character.isDigit(c) || (c == '.' && Character.isDigit(peek(1)))) {
                number(start);
                continue;
            }
            at++;
            if (c == '?') {
                add(Kind.PARAMETER, start);
            } else if (c == ';') {
                add(Kind.SEMICOLON, start);
            } else {
                add(Kind.OPERATOR, start);
            }
        }
        return new Lexed(tokens, null);
    }

    /** Plain '…' strings take backslash escapes on MariaDB (unless NO_BACKSLASH_ESCAPES) and on PostgreSQL with standard_conforming_strings off. */
    private boolean defaultBackslash() {
        return dialect != SqlDialect.H2 && syntax.backslashEscapes();
    }

    /** MariaDB: {@code --} is a comment only before a space, a control character or the end. */
    private boolean lineCommentAfterDashes() {
        if (dialect != SqlDialect.MARIADB) {
            return true;
        }
        int after = at + 2;
        return after >= sql.length() || sql.charAt(after) <= ' ' || Character.isISOControl(sql.charAt(after));
    }

    private void lineComment(int start) {
        while (at < sql.length() && sql.charAt(at) != '\n' && sql.charAt(at) != '\r') {
            at++;
        }
        add(Kind.COMMENT, start);
    }

    private String blockComment(int start) {
        boolean executable = dialect == SqlDialect.MARIADB
                && (peek(2) == '!' || ((peek(2) == 'M' || peek(2) == 'm') && peek(3) == '!'));
        boolean nests = dialect == SqlDialect.POSTGRESQL;
        int depth = 0;
        while (at < sql.length()) {
            if (sql.startsWith("/*", at) && (depth == 0 || nests)) {
                depth++;
                at += 2;
            } else if (sql.startsWith("*/", at)) {
                depth--;
                at += 2;
                if (depth == 0) {
                    add(executable ? Kind.EXECUTABLE_COMMENT : Kind.COMMENT, start);
                    return null;
                }
            } else {
                at++;
            }
        }
        return "an unterminated block comment at offset " + start;
    }

    /**
     * A string from {@code bodyStart} to the closing {@code quote}; a doubled quote stands for one, and
     * with {@code backslash} a backslash escapes the next character.
     */
    private String quoted(int start, int bodyStart, char quote, boolean backslash, char style) {
        int i = bodyStart;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (backslash && c == '\\') {
                i += 2;
            } else if (c == quote) {
                if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
                    i += 2;
                } else {
                    at = i + 1;
                    tokens.add(new Token(Kind.STRING, start, at, style, sql.substring(bodyStart, i)));
                    return null;
                }
            } else {
                i++;
            }
        }
        return "an unterminated string at offset " + start;
    }

    private String identifier(int start, int openingQuote, char quote) {
        int i = openingQuote + 1;
        while (i < sql.length()) {
            if (sql.charAt(i) == quote) {
                if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
                    i += 2;
                } else {
                    at = i + 1;
                    add(Kind.QUOTED_IDENTIFIER, start);
                    return null;
                }
            } else {
                i++;
            }
        }
        return "an unterminated quoted identifier at offset " + start;
    }

    /** The end of a dollar-quote opening tag at {@code i} ({@code $$} or {@code $tag$}), or -1. */
    private int dollarTagEnd(int i) {
        int j = i + 1;
        if (j < sql.length() && sql.charAt(j) == '$') {
            return j + 1;
        }
        if (j >= sql.length() || !(Character.isLetter(sql.charAt(j)) || sql.charAt(j) == '_')) {
            return -1;
        }
        while (j < sql.length() && (Character.isLetterOrDigit(sql.charAt(j)) || sql.charAt(j) == '_')) {
            j++;
        }
        return j < sql.length() && sql.charAt(j) == '$' ? j + 1 : -1;
    }

    private String dollarQuoted(int start, int tagEnd) {
        String tag = sql.substring(start, tagEnd);
        int close = sql.indexOf(tag, tagEnd);
        if (close < 0) {
            return "an unterminated dollar-quoted string at offset " + start;
        }
        at = close + tag.length();
        tokens.add(new Token(Kind.STRING, start, at, '$', sql.substring(tagEnd, close)));
        return null;
    }

    private static boolean isWordStart(char c) {
        return Character.isLetter(c) || c == '_' || c >= 0x80;
    }

    private boolean isWordPart(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$' || c >= 0x80;
    }

    /** A word, or a string with a prefix glued to it: E'…', N'…', X'…', B'…', U&amp;'…', _charset'…'. */
    private String wordOrPrefixedString(int start) {
        while (at < sql.length() && isWordPart(sql.charAt(at))) {
            at++;
        }
        String word = sql.substring(start, at);
        if (at < sql.length() && sql.charAt(at) == '\'') {
            if (dialect == SqlDialect.POSTGRESQL && word.equalsIgnoreCase("e")) {
                return quoted(start, at + 1, '\'', true, 'E');
            }
            boolean prefix = word.length() == 1 && "nNxXbB".indexOf(word.charAt(0)) >= 0
                    || dialect == SqlDialect.MARIADB && word.startsWith("_");
            if (prefix) {
                return quoted(start, at + 1, '\'', defaultBackslash() && "xXbB".indexOf(word.charAt(0)) < 0, 'P');
            }
        }
        if (dialect == SqlDialect.POSTGRESQL && word.equalsIgnoreCase("u") && sql.startsWith("&'", at)) {
            return quoted(start, at + 2, '\'', false, 'P');
        }
        if (dialect == SqlDialect.POSTGRESQL && word.equalsIgnoreCase("u") && sql.startsWith("&\"", at)) {
            return identifier(start, at + 1, '"');
        }
        add(Kind.WORD, start);
        return null;
    }

    private void number(int start) {
        while (at < sql.length() && (Character.isDigit(sql.charAt(at)) || sql.charAt(at) == '.')) {
            at++;
        }
        if (at < sql.length() && (sql.charAt(at) == 'e' || sql.charAt(at) == 'E')) {
            int exponent = at + 1;
            if (exponent < sql.length() && (sql.charAt(exponent) == '+' || sql.charAt(exponent) == '-')) {
                exponent++;
            }
            if (exponent < sql.length() && Character.isDigit(sql.charAt(exponent))) {
                at = exponent;
                while (at < sql.length() && Character.isDigit(sql.charAt(at))) {
                    at++;
                }
            }
        }
        add(Kind.NUMBER, start);
    }

    private char peek(int ahead) {
        int i = at + ahead;
        return i < sql.length() ? sql.charAt(i) : '\0';
    }

    private void add(Kind kind, int start) {
        tokens.add(new Token(kind, start, at, '\0', null));
    }

    private Lexed uncertain(String why) {
        return new Lexed(tokens, why);
    }
}
