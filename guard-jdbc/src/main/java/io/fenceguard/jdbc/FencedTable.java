package io.fenceguard.jdbc;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A table whose rows carry the token of the last holder that wrote them. The name may be
 * schema-qualified ({@code billing.accounts}); without a schema it matches the table in any schema.
 * Names match case-insensitively and regardless of quoting, which errs towards fencing.
 */
public final class FencedTable {

    public static final String DEFAULT_TOKEN_COLUMN = "current_token";
    private static final Pattern IDENTIFIER = Pattern.compile("[\\p{L}_][\\p{L}\\p{N}_$]*");

    private final String schema;
    private final String name;
    private final String tokenColumn;

    private FencedTable(String schema, String name, String tokenColumn) {
        this.schema = schema;
        this.name = name;
        this.tokenColumn = tokenColumn;
    }

    public static FencedTable of(String qualifiedName) {
        return of(qualifiedName, DEFAULT_TOKEN_COLUMN);
    }

    public static FencedTable of(String qualifiedName, String tokenColumn) {
        Objects.requireNonNull(qualifiedName, "table name");
        String[] parts = qualifiedName.trim().split("\\.", -1);
        if (parts.length > 2) {
            throw new IllegalArgumentException("a fenced table is [schema.]table, got '" + qualifiedName + "'");
        }
        String table = identifier(parts[parts.length - 1], "table name");
        String schemaName = parts.length == 2 ? identifier(parts[0], "schema name") : null;
        return new FencedTable(schemaName, table, identifier(tokenColumn, "token column"));
    }

    private static String identifier(String text, String what) {
        String bare = text == null ? "" : unquote(text.trim());
        if (!IDENTIFIER.matcher(bare).matches()) {
            throw new IllegalArgumentException("invalid " + what + ": '" + text + "'");
        }
        return bare;
    }

    static String unquote(String identifier) {
        if (identifier.length() >= 2) {
            char first = identifier.charAt(0);
            char last = identifier.charAt(identifier.length() - 1);
            if ((first == '"' && last == '"') || (first == '`' && last == '`') || (first == '[' && last == ']')) {
                return identifier.substring(1, identifier.length() - 1);
            }
        }
        return identifier;
    }

    /** Whether a table reference as written in SQL ({@code schema} may be null) denotes this table. */
    public boolean matches(String sqlSchema, String sqlName) {
        if (sqlName == null || !unquote(sqlName).equalsIgnoreCase(name)) {
            return false;
        }
        return schema == null || sqlSchema == null || unquote(sqlSchema).equalsIgnoreCase(schema);
    }

    /** The schema, or {@code null} for any schema. */
    public String schema() {
        return schema;
    }

    public String name() {
        return name;
    }

    /** The BIGINT column holding the token of the last writer. */
    public String tokenColumn() {
        return tokenColumn;
    }

    public String qualifiedName() {
        return schema == null ? name : schema + "." + name;
    }

    String lowerCaseName() {
        return name.toLowerCase(Locale.ROOT);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FencedTable other && Objects.equals(schema, other.schema)
                && name.equalsIgnoreCase(other.name) && tokenColumn.equals(other.tokenColumn);
    }

    @Override
    public int hashCode() {
        return Objects.hash(schema, name.toLowerCase(Locale.ROOT), tokenColumn);
    }

    @Override
    public String toString() {
        return qualifiedName() + "(" + tokenColumn + ")";
    }
}
