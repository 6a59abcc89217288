package io.fenceguard.jdbc.internal.sql;

import io.fenceguard.jdbc.FencingRefusedException.Reason;
import io.fenceguard.jdbc.sql.SqlFencePlan;
import io.fenceguard.jdbc.sql.SqlFencePlan.Kind;

/**
 * What to do with one SQL string, decided once and cached: pass it through, run its fenced
 * rewrite, or (not rewritable) run it only inside {@code Unfenced}. The guard's own form of a
 * {@link SqlFencePlan}: immutable, and its arrays are shared rather than copied, so that binding a
 * parameter allocates nothing; only the guard's code may hold one.
 */
public final class StatementPlan {

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

    private StatementPlan(Kind kind, String sql, String rewrittenSql, int[][] positions, int[] tokenPositions,
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

    public static StatementPlan passThrough(String sql, boolean read) {
        return new StatementPlan(Kind.PASS_THROUGH, sql, sql, NO_POSITIONS, new int[0], 0, null, null, null, read);
    }

    static StatementPlan rewritten(String sql, String rewrittenSql, int[][] positions, int[] tokenPositions,
                                 int parameterCount, String table) {
        return new StatementPlan(Kind.REWRITTEN, sql, rewrittenSql, positions, tokenPositions, parameterCount,
                table, null, null, false);
    }

    static StatementPlan notRewritable(String sql, String table, Reason reason, String why) {
        return new StatementPlan(Kind.NOT_REWRITABLE, sql, sql, NO_POSITIONS, new int[0], 0, table, reason, why, false);
    }

    /** The same rewrite for the application's {@code original}, preparing {@code text} (same parameters, same places). */
    StatementPlan with(String original, String text) {
        return new StatementPlan(kind, original, text, positions, tokenPositions, parameterCount, table, reason, why, read);
    }

    public Kind kind() {
        return kind;
    }

    /** The application's SQL. */
    public String sql() {
        return sql;
    }

    /** The SQL to prepare when fenced: the rewrite, or the original for other kinds. */
    public String rewrittenSql() {
        return rewrittenSql;
    }

    /** Positions in the rewritten SQL that the application's parameter {@code index} binds (1-based). */
    public int[] positionsOf(int index) {
        return index >= 1 && index < positions.length ? positions[index] : null;
    }

    /** Parameters the application binds. */
    public int applicationParameterCount() {
        return Math.max(0, positions.length - 1);
    }

    public int[] tokenPositions() {
        return tokenPositions;
    }

    /** Parameters in the rewritten SQL. */
    public int parameterCount() {
        return parameterCount;
    }

    /** The fenced table concerned, if any. */
    public String table() {
        return table;
    }

    public Reason reason() {
        return reason;
    }

    public String why() {
        return why;
    }

    /** A statement that only reads (a SELECT). */
    public boolean isRead() {
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
