package io.fenceguard.jdbc.internal.catalog;

import io.fenceguard.jdbc.FencedTable;
import io.fenceguard.jdbc.SqlDialect;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Table names as the database sees them: a name as written in SQL or in the configuration, folded the
 * dialect's way. PostgreSQL folds unquoted names to lower case (ASCII only, as the server does) and
 * keeps quoted ones, decoding {@code U&"…"}; MariaDB/MySQL ignore quoting and compare case-insensitively
 * unless {@code lower_case_table_names} is 0; H2 (tests) compares case-insensitively.
 */
public final class TableNames {

    private static final Pattern UNICODE_IDENTIFIER = Pattern.compile("(?i)u&\"((?:[^\"]|\"\")*)\"");
    private static final Pattern UESCAPE = Pattern.compile("(?i)\\buescape\\b");

    private final SqlDialect dialect;
    private final boolean caseSensitive;

    public TableNames(SqlDialect dialect, boolean mariaDbCaseSensitive) {
        this.dialect = dialect;
        this.caseSensitive = dialect == SqlDialect.MARIADB && mariaDbCaseSensitive;
    }

    SqlDialect dialect() {
        return dialect;
    }

    /** A name part as written in SQL, as the server stores it; {@code null} for a PostgreSQL {@code U&} part it cannot decode. */
    public String fold(String written) {
        if (written == null) {
            return null;
        }
        String part = written.trim();
        if (dialect == SqlDialect.POSTGRESQL) {
            if (part.length() > 3 && (part.startsWith("U&\"") || part.startsWith("u&\"")) && part.endsWith("\"")) {
                return decodeUnicode(part.substring(3, part.length() - 1).replace("\"\"", "\""));
            }
            if (part.length() >= 2 && part.startsWith("\"") && part.endsWith("\"")) {
                return part.substring(1, part.length() - 1).replace("\"\"", "\"");
            }
            return asciiLower(part);
        }
        String unquoted = unquote(part);
        return caseSensitive ? unquoted : unquoted.toLowerCase(Locale.ROOT);
    }

    /** A configured part ({@link FencedTable}: text and whether it was quoted), as the server stores it. */
    String foldConfigured(String text, boolean quoted) {
        if (text == null) {
            return null;
        }
        if (dialect == SqlDialect.POSTGRESQL) {
            return quoted ? text : asciiLower(text);
        }
        return caseSensitive ? text : text.toLowerCase(Locale.ROOT);
    }

    String tableName(FencedTable table) {
        return foldConfigured(table.name(), table.nameQuoted());
    }

    String schemaName(FencedTable table) {
        return foldConfigured(table.schema(), table.schemaQuoted());
    }

    /** The first of {@code tables} a reference as written in SQL denotes; a missing schema on either side matches any. */
    public Optional<FencedTable> match(List<FencedTable> tables, String sqlSchema, String sqlName) {
        if (sqlName == null) {
            return Optional.empty();
        }
        String name = fold(sqlName);
        String schema = fold(sqlSchema);
        for (FencedTable table : tables) {
            if (!tableName(table).equals(name)) {
                continue;
            }
            if (table.schema() == null || schema == null || schemaName(table).equals(schema)) {
                return Optional.of(table);
            }
        }
        return Optional.empty();
    }

    /**
     * Whether text the parser cannot read may name one of {@code tables}: any mention of a name, quoted
     * or not, and on PostgreSQL any {@code U&"…"} identifier that decodes to one (or that it cannot
     * decode). Errs towards yes.
     */
    public boolean mentions(String sql, List<FencedTable> tables) {
        String lower = sql.toLowerCase(Locale.ROOT);
        for (FencedTable table : tables) {
            String name = table.name().toLowerCase(Locale.ROOT);
            if (lower.contains(name) || lower.contains(name.replace("\"", "\"\""))
                    || lower.contains(name.replace("`", "``"))) {
                return true;
            }
        }
        if (dialect == SqlDialect.POSTGRESQL && lower.contains("u&\"")) {
            if (UESCAPE.matcher(sql).find()) {
                return true;
            }
            Matcher unicode = UNICODE_IDENTIFIER.matcher(sql);
            while (unicode.find()) {
                String decoded = decodeUnicode(unicode.group(1).replace("\"\"", "\""));
                if (decoded == null) {
                    return true;
                }
                for (FencedTable table : tables) {
                    if (decoded.equalsIgnoreCase(table.name())) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** PostgreSQL's {@code U&} escapes with the default escape character: {@code \XXXX}, {@code \+XXXXXX}, {@code \\}. */
    static String decodeUnicode(String body) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c != '\\') {
                out.append(c);
                continue;
            }
            try {
                if (i + 1 < body.length() && body.charAt(i + 1) == '\\') {
                    out.append('\\');
                    i += 1;
                } else if (i + 1 < body.length() && body.charAt(i + 1) == '+') {
                    out.appendCodePoint(Integer.parseInt(body.substring(i + 2, i + 8), 16));
                    i += 7;
                } else {
                    out.appendCodePoint(Integer.parseInt(body.substring(i + 1, i + 5), 16));
                    i += 4;
                }
            } catch (RuntimeException e) {
                return null;
            }
        }
        return out.toString();
    }

    static String unquote(String part) {
        if (part.length() >= 2) {
            char first = part.charAt(0);
            char last = part.charAt(part.length() - 1);
            if ((first == '"' || first == '`') && last == first) {
                String quote = String.valueOf(first);
                return part.substring(1, part.length() - 1).replace(quote + quote, quote);
            }
            if (first == '[' && last == ']') {
                return part.substring(1, part.length() - 1);
            }
        }
        return part;
    }

    static String asciiLower(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            out.append(c >= 'A' && c <= 'Z' ? (char) (c + 32) : c);
        }
        return out.toString();
    }
}
