package io.fenceguard.reactor.r2dbc;

import java.util.ArrayList;
import java.util.List;

/**
 * PostgreSQL's {@code $n} bind markers and JDBC's {@code ?}, translated both ways outside literals,
 * quoted identifiers, comments and dollar-quoted strings, so that the JDBC module's
 * {@code SqlFencePlanner} (which reads {@code ?}) serves R2DBC statements.
 */
final class BindMarkers {

    /**
     * SQL with a {@code ?} in place of each {@code $n}, and for each {@code ?} (1-based) the {@code n} it
     * stands for; {@code bareQuestionMark} when the SQL already had a {@code ?} outside literals (an
     * operator on PostgreSQL), which the planner would take for a marker.
     */
    record Translation(String jdbcSql, int[] markerNumbers, boolean bareQuestionMark) {

        int highestNumber() {
            int highest = 0;
            for (int i = 1; i < markerNumbers.length; i++) {
                highest = Math.max(highest, markerNumbers[i]);
            }
            return highest;
        }
    }

    private BindMarkers() {
    }

    static Translation toJdbc(String sql) {
        StringBuilder out = new StringBuilder(sql.length());
        List<Integer> numbers = new ArrayList<>();
        numbers.add(0);
        boolean bare = false;
        int i = 0;
        int n = sql.length();
        while (i < n) {
            int skip = skipQuoted(sql, i);
            if (skip > i) {
                out.append(sql, i, skip);
                i = skip;
                continue;
            }
            char c = sql.charAt(i);
            if (c == '$' && i + 1 < n && isDigit(sql.charAt(i + 1)) && (i == 0 || !isIdentifierPart(sql.charAt(i - 1)))) {
                int end = i + 1;
                while (end < n && isDigit(sql.charAt(end))) {
                    end++;
                }
                numbers.add(Integer.parseInt(sql.substring(i + 1, Math.min(end, i + 10))));
                out.append('?');
                i = end;
                continue;
            }
            if (c == '?') {
                bare = true;
            }
            out.append(c);
            i++;
        }
        return new Translation(out.toString(), numbers.stream().mapToInt(Integer::intValue).toArray(), bare);
    }

    /** {@code jdbcSql} with its {@code ?} markers numbered {@code $1}, {@code $2}, … in order; also returns the count. */
    static String toDollar(String jdbcSql, int expectedMarkers) {
        StringBuilder out = new StringBuilder(jdbcSql.length() + 16);
        int count = 0;
        int i = 0;
        int n = jdbcSql.length();
        while (i < n) {
            int skip = skipQuoted(jdbcSql, i);
            if (skip > i) {
                out.append(jdbcSql, i, skip);
                i = skip;
                continue;
            }
            char c = jdbcSql.charAt(i);
            if (c == '?') {
                out.append('$').append(++count);
            } else {
                out.append(c);
            }
            i++;
        }
        if (count != expectedMarkers) {
            throw new IllegalStateException("the rewritten SQL has " + count + " markers where " + expectedMarkers
                    + " were planned: " + jdbcSql);
        }
        return out.toString();
    }

    /** The index after the literal, identifier, comment or dollar-quoted string at {@code i}; {@code i} if none starts there. */
    private static int skipQuoted(String sql, int i) {
        int n = sql.length();
        char c = sql.charAt(i);
        if (c == '\'') {
            boolean escapes = i > 0 && (sql.charAt(i - 1) == 'E' || sql.charAt(i - 1) == 'e')
                    && (i < 2 || !isIdentifierPart(sql.charAt(i - 2)));
            int j = i + 1;
            while (j < n) {
                char d = sql.charAt(j);
                if (escapes && d == '\\') {
                    j += 2;
                    continue;
                }
                if (d == '\'') {
                    if (j + 1 < n && sql.charAt(j + 1) == '\'') {
                        j += 2;
                        continue;
                    }
                    return j + 1;
                }
                j++;
            }
            return n;
        }
        if (c == '"') {
            int j = sql.indexOf('"', i + 1);
            while (j >= 0 && j + 1 < n && sql.charAt(j + 1) == '"') {
                j = sql.indexOf('"', j + 2);
            }
            return j < 0 ? n : j + 1;
        }
        if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
            int j = sql.indexOf('\n', i);
            return j < 0 ? n : j + 1;
        }
        if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
            int depth = 1;
            int j = i + 2;
            while (j < n && depth > 0) {
                if (sql.startsWith("/*", j)) {
                    depth++;
                    j += 2;
                } else if (sql.startsWith("*/", j)) {
                    depth--;
                    j += 2;
                } else {
                    j++;
                }
            }
            return j;
        }
        if (c == '$' && (i == 0 || !isIdentifierPart(sql.charAt(i - 1)))) {
            int j = i + 1;
            while (j < n && (Character.isLetter(sql.charAt(j)) || sql.charAt(j) == '_'
                    || (j > i + 1 && isDigit(sql.charAt(j))))) {
                j++;
            }
            if (j < n && sql.charAt(j) == '$') {
                String tag = sql.substring(i, j + 1);
                int end = sql.indexOf(tag, j + 1);
                return end < 0 ? n : end + tag.length();
            }
        }
        return i;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isIdentifierPart(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$';
    }
}
