package io.fenceguard.jdbc;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A table whose rows carry the token of the last holder that wrote them. The name is written as in
 * SQL: {@code accounts}, {@code billing.accounts}, {@code "Order Lines"}, {@code billing."Order Lines"},
 * {@code `Order Lines`}; a quoted part keeps its case and may hold any character (a doubled quote
 * stands for one). Matching follows the database: on PostgreSQL an unquoted part folds to lower case
 * and a quoted one is exact; on MariaDB/MySQL case matters as {@code lower_case_table_names} says.
 * Without a schema it matches the table in any schema; the catalog check at the first connection
 * tells which table that is and fails when it does not exist or lacks the token column.
 */
public final class FencedTable {

    public static final String DEFAULT_TOKEN_COLUMN = "current_token";

    private final String schema;
    private final boolean schemaQuoted;
    private final String name;
    private final boolean nameQuoted;
    private final String tokenColumn;
    private final boolean tokenColumnQuoted;

    private FencedTable(Part schema, Part name, Part tokenColumn) {
        this.schema = schema == null ? null : schema.text;
        this.schemaQuoted = schema != null && schema.quoted;
        this.name = name.text;
        this.nameQuoted = name.quoted;
        this.tokenColumn = tokenColumn.text;
        this.tokenColumnQuoted = tokenColumn.quoted;
    }

    public static FencedTable of(String qualifiedName) {
        return of(qualifiedName, DEFAULT_TOKEN_COLUMN);
    }

    /**
     * @throws IllegalArgumentException naming the part when the text is not a legal
     *     {@code [schema.]table} (empty part, unclosed quote, more than two parts)
     */
    public static FencedTable of(String qualifiedName, String tokenColumn) {
        Objects.requireNonNull(qualifiedName, "table name");
        List<Part> parts = parts(qualifiedName, "table name");
        if (parts.size() > 2) {
            throw new IllegalArgumentException("a fenced table is [schema.]table, got '" + qualifiedName
                    + "'; quote a name that holds a dot: \"a.b\"");
        }
        List<Part> column = parts(Objects.requireNonNull(tokenColumn, "token column"), "token column");
        if (column.size() != 1) {
            throw new IllegalArgumentException("invalid token column: '" + tokenColumn + "'; quote a name that holds a dot");
        }
        return new FencedTable(parts.size() == 2 ? parts.get(0) : null, parts.get(parts.size() - 1), column.get(0));
    }

    /** An already unquoted, exact table (from the catalog), fenced with {@code like}'s token column. */
    static FencedTable exact(String schema, String name, FencedTable like) {
        return new FencedTable(schema == null ? null : new Part(schema, true), new Part(name, true),
                new Part(like.tokenColumn, like.tokenColumnQuoted));
    }

    private record Part(String text, boolean quoted) {
    }

    /** Splits {@code text} at dots outside quotes ({@code "…"}, {@code `…`}, {@code […]}), unquoting each part. */
    private static List<Part> parts(String text, String what) {
        List<Part> parts = new ArrayList<>();
        String s = text.trim();
        int i = 0;
        while (true) {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            if (i >= s.length()) {
                throw new IllegalArgumentException("invalid " + what + ": '" + text + "' (empty part)");
            }
            char c = s.charAt(i);
            char close = c == '"' ? '"' : c == '`' ? '`' : c == '[' ? ']' : 0;
            if (close != 0) {
                StringBuilder part = new StringBuilder();
                int j = i + 1;
                while (true) {
                    if (j >= s.length()) {
                        throw new IllegalArgumentException("invalid " + what + ": '" + text + "' (unclosed " + c + ")");
                    }
                    char d = s.charAt(j);
                    if (d == close) {
                        if (close != ']' && j + 1 < s.length() && s.charAt(j + 1) == close) {
                            part.append(close);
                            j += 2;
                            continue;
                        }
                        break;
                    }
                    part.append(d);
                    j++;
                }
                if (part.length() == 0) {
                    throw new IllegalArgumentException("invalid " + what + ": '" + text + "' (empty quoted part)");
                }
                parts.add(new Part(part.toString(), true));
                i = j + 1;
            } else {
                int j = i;
                while (j < s.length() && s.charAt(j) != '.' && !Character.isWhitespace(s.charAt(j))) {
                    char d = s.charAt(j);
                    if (!(Character.isLetterOrDigit(d) || d == '_' || d == '$')) {
                        throw new IllegalArgumentException("invalid " + what + ": '" + text + "' ('" + d
                                + "' needs quotes: \"…\")");
                    }
                    j++;
                }
                if (Character.isDigit(s.charAt(i))) {
                    throw new IllegalArgumentException("invalid " + what + ": '" + text
                            + "' (an unquoted name starts with a letter or _; quote it)");
                }
                parts.add(new Part(s.substring(i, j), false));
                i = j;
            }
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            if (i >= s.length()) {
                return parts;
            }
            if (s.charAt(i) != '.') {
                throw new IllegalArgumentException("invalid " + what + ": '" + text + "' (unexpected '"
                        + s.charAt(i) + "'; quote a name with spaces or symbols)");
            }
            i++;
        }
    }

    static String unquote(String identifier) {
        if (identifier.length() >= 2) {
            char first = identifier.charAt(0);
            char last = identifier.charAt(identifier.length() - 1);
            if ((first == '"' && last == '"') || (first == '`' && last == '`')) {
                String quote = String.valueOf(first);
                return identifier.substring(1, identifier.length() - 1).replace(quote + quote, quote);
            }
            if (first == '[' && last == ']') {
                return identifier.substring(1, identifier.length() - 1);
            }
        }
        return identifier;
    }

    /**
     * Whether a table reference as written in SQL ({@code schema} may be null) may denote this table,
     * ignoring case: the lenient test, true wherever a dialect's folding could make them equal. The
     * guard itself matches by each dialect's folding.
     */
    public boolean matches(String sqlSchema, String sqlName) {
        if (sqlName == null || !unquote(sqlName).equalsIgnoreCase(name)) {
            return false;
        }
        return schema == null || sqlSchema == null || unquote(sqlSchema).equalsIgnoreCase(schema);
    }

    /** The schema (MariaDB: database) without quotes, or {@code null} for any schema. */
    public String schema() {
        return schema;
    }

    /** Whether the schema was quoted (kept exactly as written). */
    public boolean schemaQuoted() {
        return schemaQuoted;
    }

    /** The table name without quotes, as written. */
    public String name() {
        return name;
    }

    /** Whether the name was quoted (kept exactly as written). */
    public boolean nameQuoted() {
        return nameQuoted;
    }

    /** The BIGINT column holding the token of the last writer, without quotes. */
    public String tokenColumn() {
        return tokenColumn;
    }

    public boolean tokenColumnQuoted() {
        return tokenColumnQuoted;
    }

    /** The name as configured, quoted where it was quoted ({@code billing."Order Lines"}). */
    public String qualifiedName() {
        String table = nameQuoted ? quote(name) : name;
        return schema == null ? table : (schemaQuoted ? quote(schema) : schema) + "." + table;
    }

    private static String quote(String part) {
        return "\"" + part.replace("\"", "\"\"") + "\"";
    }

    String lowerCaseName() {
        return name.toLowerCase(Locale.ROOT);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FencedTable other && Objects.equals(schema, other.schema)
                && schemaQuoted == other.schemaQuoted && name.equals(other.name) && nameQuoted == other.nameQuoted
                && tokenColumn.equals(other.tokenColumn) && tokenColumnQuoted == other.tokenColumnQuoted;
    }

    @Override
    public int hashCode() {
        return Objects.hash(schema, name, tokenColumn);
    }

    @Override
    public String toString() {
        return qualifiedName() + "(" + (tokenColumnQuoted ? quote(tokenColumn) : tokenColumn) + ")";
    }
}
