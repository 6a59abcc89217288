package io.fenceguard.jdbc.internal;

import io.fenceguard.jdbc.FencingRefusedException.Reason;

/**
 * What to do with one SQL string, decided once and cached: pass it through, run its fenced
 * rewrite, or (not rewritable) run it only inside {@code Unfenced}. Immutable; the arrays are never
 * handed out of this package.
 */
final class RewritePlan {

    enum Kind { PASS_THROUGH, REWRITTEN, NOT_REWRITABLE }

    private static final int[][] NO_POSITIONS = new int[0][];

    private final Kind kind;
    private final String sql;
    private final String rewrittenSql;
    private final int[][] positions;
    private final int[] tokenPositions;
    private final int parameterCount;
    private final String table;
    private final Reason reason;
    private final String why;
    private final boolean read;

    private RewritePlan(Kind kind, String sql, String rewrittenSql, int[][] positions, int[] tokenPositions,
                        int parameterCount, String table, Reason reason, String why, boolean read) {
        this.kind = kind;
        this.sql = sql;
        this.rewrittenSql = rewrittenSql;
        this.positions = positions;
        this.tokenPositions = tokenPositions;
        this.parameterCount = parameterCount;
        this.table = table;
        this.reason = reason;
        this.why = why;
        this.read = read;
    }

    static RewritePlan passThrough(String sql, boolean read) {
        return new RewritePlan(Kind.PASS_THROUGH, sql, sql, NO_POSITIONS, new int[0], 0, null, null, null, read);
    }

    static RewritePlan rewritten(String sql, String rewrittenSql, int[][] positions, int[] tokenPositions,
                                 int parameterCount, String table) {
        return new RewritePlan(Kind.REWRITTEN, sql, rewrittenSql, positions, tokenPositions, parameterCount,
                table, null, null, false);
    }

    static RewritePlan notRewritable(String sql, String table, Reason reason, String why) {
        return new RewritePlan(Kind.NOT_REWRITABLE, sql, sql, NO_POSITIONS, new int[0], 0, table, reason, why, false);
    }

    /** The same rewrite for the application's {@code original}, preparing {@code text} (same parameters, same places). */
    RewritePlan with(String original, String text) {
        return new RewritePlan(kind, original, text, positions, tokenPositions, parameterCount, table, reason, why, read);
    }

    Kind kind() {
        return kind;
    }

    /** The application's SQL. */
    String sql() {
        return sql;
    }

    /** The SQL to prepare when fenced: the rewrite, or the original for other kinds. */
    String rewrittenSql() {
        return rewrittenSql;
    }

    /** Positions in the rewritten SQL that the application's parameter {@code index} binds (1-based). */
    int[] positionsOf(int index) {
        return index >= 1 && index < positions.length ? positions[index] : null;
    }

    /** Parameters the application binds. */
    int applicationParameterCount() {
        return Math.max(0, positions.length - 1);
    }

    int[] tokenPositions() {
        return tokenPositions;
    }

    /** Parameters in the rewritten SQL. */
    int parameterCount() {
        return parameterCount;
    }

    /** The fenced table concerned, if any. */
    String table() {
        return table;
    }

    Reason reason() {
        return reason;
    }

    String why() {
        return why;
    }

    /** A statement that only reads (a SELECT). */
    boolean isRead() {
        return read;
    }

    @Override
    public String toString() {
        return switch (kind) {
            case PASS_THROUGH -> "PassThrough[" + sql + "]";
            case REWRITTEN -> "Rewritten[" + rewrittenSql + "]";
            case NOT_REWRITABLE -> "NotRewritable[" + reason + ": " + why + "]";
        };
    }
}
