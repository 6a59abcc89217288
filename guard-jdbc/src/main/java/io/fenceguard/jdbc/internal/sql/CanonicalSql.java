package io.fenceguard.jdbc.internal.sql;

import io.fenceguard.jdbc.SqlDialect;
import io.fenceguard.jdbc.internal.sql.SqlLexer.Kind;
import io.fenceguard.jdbc.internal.sql.SqlLexer.Token;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * SQL text rewritten, token by token as the server reads it, into a form that JSqlParser and the
 * server read alike: comments become a space, strings become plain {@code '…'} strings (quotes doubled,
 * backslashes as the session reads them), a MariaDB {@code -} followed by {@code -} that is no comment
 * gets a space between. What cannot be put in such a form with certainty is {@link #uncertain}.
 *
 * @param text        the canonical text, or {@code null} when uncertain
 * @param statements  how many statements the text holds (a trailing {@code ;} ends one, it does not start one)
 * @param uncertain   why the guard cannot be sure how the server reads the text, or {@code null}
 * @param significant the words, numbers, strings, quoted identifiers and parameters, in order, normalised
 */
record CanonicalSql(String text, int statements, String uncertain, List<String> significant) {

    static CanonicalSql of(String sql, SqlDialect dialect, SessionSyntax syntax) {
        if (!syntax.known()) {
            return agreedByEverySession(sql, dialect);
        }
        SqlLexer.Lexed lexed = SqlLexer.lex(sql, dialect, syntax);
        if (lexed.uncertain() != null) {
            return uncertain(lexed.uncertain());
        }
        StringBuilder text = new StringBuilder(sql.length());
        List<String> significant = new ArrayList<>();
        int statements = 0;
        boolean inStatement = false;
        for (Token token : lexed.tokens()) {
            String piece;
            switch (token.kind()) {
                case WHITESPACE, COMMENT -> piece = " ";
                case EXECUTABLE_COMMENT -> {
                    return uncertain("MariaDB executes the content of " + token.text(sql)
                            + " comments, which the parser skips");
                }
                case STRING -> {
                    piece = string(token, sql, dialect, syntax);
                    if (piece == null) {
                        return uncertain("the string " + token.text(sql)
                                + " holds a backslash escape the guard cannot carry over with certainty"
                                + " (octal, hexadecimal, unicode, or in a prefixed string)");
                    }
                }
                case SEMICOLON -> {
                    inStatement = false;
                    piece = ";";
                }
                default -> piece = token.text(sql);
            }
            if (token.kind() != Kind.WHITESPACE && token.kind() != Kind.COMMENT && token.kind() != Kind.SEMICOLON
                    && !inStatement) {
                inStatement = true;
                statements++;
            }
            if (isSignificant(token.kind())) {
                significant.add(normalised(token.kind(), piece));
            }
            // "- -1" must not become "--1", which the parser would read as a comment
            if (piece.startsWith("-") && !text.isEmpty() && text.charAt(text.length() - 1) == '-') {
                text.append(' ');
            }
            text.append(piece);
        }
        return new CanonicalSql(stripTrailingSemicolons(text), statements, null, significant);
    }

    /**
     * Without the session's settings: certain only when every possible setting splits the text into the
     * same tokens and no string holds a backslash (whose meaning the settings decide).
     */
    private static CanonicalSql agreedByEverySession(String sql, SqlDialect dialect) {
        List<SessionSyntax> variants = SessionSyntax.variants(dialect);
        SqlLexer.Lexed first = null;
        for (SessionSyntax variant : variants) {
            SqlLexer.Lexed lexed = SqlLexer.lex(sql, dialect, variant);
            if (lexed.uncertain() != null) {
                return uncertain(lexed.uncertain());
            }
            boolean backslash = lexed.tokens().stream()
                    .anyMatch(t -> t.kind() == Kind.STRING && t.body().indexOf('\\') >= 0);
            if (backslash || first != null && !sameTokens(first.tokens(), lexed.tokens())) {
                return uncertain("the server reads it differently depending on "
                        + (dialect == SqlDialect.MARIADB ? "sql_mode" : "standard_conforming_strings")
                        + ", which the guard could not read on this connection (a SET changed it?)");
            }
            first = lexed;
        }
        return of(sql, dialect, variants.get(0));
    }

    private static boolean sameTokens(List<Token> a, List<Token> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            Token x = a.get(i);
            Token y = b.get(i);
            if (x.kind() != y.kind() || x.start() != y.start() || x.end() != y.end() || x.style() != y.style()) {
                return false;
            }
        }
        return true;
    }

    boolean isCertain() {
        return uncertain == null;
    }

    /**
     * Whether {@code rendered} (the rewrite of this text) keeps every word, number, string, quoted
     * identifier and parameter of this text, holds one statement and no comment: a rewrite may add,
     * never drop (a comment that swallowed a WHERE clause would drop it).
     */
    String dropsSomethingIn(String rendered, SqlDialect dialect, SessionSyntax syntax) {
        SessionSyntax reading = syntax.known() ? syntax : SessionSyntax.defaults(dialect);
        SqlLexer.Lexed lexed = SqlLexer.lex(rendered, dialect, reading);
        if (lexed.uncertain() != null) {
            return "the rewrite would not read with certainty: " + lexed.uncertain();
        }
        for (Token token : lexed.tokens()) {
            if (token.kind() == Kind.COMMENT || token.kind() == Kind.EXECUTABLE_COMMENT
                    || token.kind() == Kind.SEMICOLON) {
                return "the rewrite would hold a comment or a statement separator";
            }
        }
        CanonicalSql output = of(rendered, dialect, reading);
        if (output.uncertain() != null) {
            return "the rewrite would not read with certainty: " + output.uncertain();
        }
        Map<String, Integer> available = new HashMap<>();
        for (String piece : output.significant()) {
            available.merge(piece, 1, Integer::sum);
        }
        for (String piece : significant) {
            Integer left = available.get(piece);
            if (left == null || left == 0) {
                return "the rewrite would drop " + piece + " from the statement";
            }
            available.put(piece, left - 1);
        }
        return null;
    }

    private static boolean isSignificant(Kind kind) {
        return kind == Kind.WORD || kind == Kind.NUMBER || kind == Kind.STRING || kind == Kind.QUOTED_IDENTIFIER
                || kind == Kind.PARAMETER;
    }

    private static String normalised(Kind kind, String piece) {
        return kind == Kind.WORD ? piece.toLowerCase(Locale.ROOT) : piece;
    }

    /**
     * The string as a plain {@code '…'} literal that means the same to the server with these settings,
     * and that JSqlParser (told whether backslashes escape) reads to the same end; {@code null} when the
     * value cannot be decoded with certainty.
     */
    private static String string(Token token, String sql, SqlDialect dialect, SessionSyntax syntax) {
        String body = token.body();
        switch (token.style()) {
            case '\'', 'P' -> {
                // N'…', _utf8'…': whether the parser reads their backslashes as the server does is not known
                if (token.style() == 'P' && syntax.backslashEscapes() && body.indexOf('\\') >= 0) {
                    return null;
                }
                if (dialect == SqlDialect.POSTGRESQL && token.style() == '\'' && syntax.backslashEscapes()) {
                    String value = decodeBackslashes(body, '\'');
                    return value == null ? null : plain(value, true);
                }
                return token.text(sql);
            }
            case 'E' -> {
                String value = decodeBackslashes(body, '\'');
                return value == null ? null : plain(value, syntax.backslashEscapes());
            }
            case '$' -> {
                return plain(body, syntax.backslashEscapes());
            }
            case '"' -> {
                // a MariaDB "…" string: with backslash escapes, \x keeps its meaning inside '…'
                String value = body.replace("\"\"", "\"");
                if (syntax.backslashEscapes()) {
                    StringBuilder out = new StringBuilder("'");
                    for (int i = 0; i < value.length(); i++) {
                        char c = value.charAt(i);
                        if (c == '\\' && i + 1 < value.length()) {
                            out.append(c).append(value.charAt(++i));
                        } else if (c == '\'') {
                            out.append("''");
                        } else {
                            out.append(c);
                        }
                    }
                    return out.append('\'').toString();
                }
                return plain(value, false);
            }
            default -> {
                return null;
            }
        }
    }

    /** {@code value} quoted: quotes doubled, and backslashes doubled when the server reads them as escapes. */
    private static String plain(String value, boolean backslashEscapes) {
        String quoted = value.replace("'", "''");
        if (backslashEscapes) {
            quoted = quoted.replace("\\", "\\\\");
        }
        return "'" + quoted + "'";
    }

    /**
     * The value of a PostgreSQL backslash-escaped body: {@code \b \f \n \r \t}, any other character
     * standing for itself, doubled quotes; octal, hexadecimal and unicode escapes are not certain.
     */
    private static String decodeBackslashes(String body, char quote) {
        StringBuilder value = new StringBuilder(body.length());
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c == '\\') {
                if (i + 1 >= body.length()) {
                    return null;
                }
                char next = body.charAt(++i);
                switch (next) {
                    case 'b' -> value.append('\b');
                    case 'f' -> value.append('\f');
                    case 'n' -> value.append('\n');
                    case 'r' -> value.append('\r');
                    case 't' -> value.append('\t');
                    // octal, hexadecimal and unicode escapes: not decoded here, so not certain
                    case '0', '1', '2', '3', '4', '5', '6', '7', 'x', 'u', 'U' -> {
                        return null;
                    }
                    // PostgreSQL: any other escaped character stands for itself
                    default -> value.append(next);
                }
            } else if (c == quote && i + 1 < body.length() && body.charAt(i + 1) == quote) {
                value.append(quote);
                i++;
            } else {
                value.append(c);
            }
        }
        return value.toString();
    }

    private static String stripTrailingSemicolons(StringBuilder text) {
        int end = text.length();
        while (end > 0 && (text.charAt(end - 1) == ';' || Character.isWhitespace(text.charAt(end - 1)))) {
            end--;
        }
        int start = 0;
        while (start < end && Character.isWhitespace(text.charAt(start))) {
            start++;
        }
        return text.substring(start, end);
    }

    private static CanonicalSql uncertain(String why) {
        return new CanonicalSql(null, 0, why, List.of());
    }
}
