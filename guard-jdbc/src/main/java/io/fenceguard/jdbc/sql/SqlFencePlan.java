package io.fenceguard.jdbc.sql;

import io.fenceguard.core.Fence;
import io.fenceguard.jdbc.FencingRefusedException;
import io.fenceguard.jdbc.FencingRefusedException.Reason;
import io.fenceguard.jdbc.StaleTokenException;
import io.fenceguard.jdbc.internal.sql.StaleErrors;
import io.fenceguard.jdbc.internal.sql.StatementPlan;
import java.util.Optional;

/**
 * What {@link SqlFencePlanner} decided for one SQL string: pass it through as written, prepare its
 * rewrite with the token bound at {@link #tokenPositions()}, or refuse it ({@link #refusal}). Immutable;
 * the arrays it hands out are copies.
 */
public final class SqlFencePlan {

    /** Pass it through as written; run the rewrite with the token bound; or refuse it. */
    public enum Kind { PASS_THROUGH, REWRITTEN, NOT_REWRITABLE }

    private final StatementPlan plan;

    SqlFencePlan(StatementPlan plan) {
        this.plan = plan;
    }

    /** What to do with the statement. */
    public Kind kind() {
        return plan.kind();
    }

    /** The application's SQL. */
    public String sql() {
        return plan.sql();
    }

    /** The SQL to prepare: the rewrite, with {@code ?} markers; the original for the other kinds. */
    public String rewrittenSql() {
        return plan.rewrittenSql();
    }

    /** Parameters the application binds. */
    public int applicationParameterCount() {
        return plan.applicationParameterCount();
    }

    /**
     * The 1-based positions in the rewritten SQL that the application's parameter {@code index} (1-based)
     * binds; {@code null} for an index the statement does not have.
     */
    public int[] positionsOf(int index) {
        int[] positions = plan.positionsOf(index);
        return positions == null ? null : positions.clone();
    }

    /** The 1-based positions in the rewritten SQL that take the token. */
    public int[] tokenPositions() {
        return plan.tokenPositions().clone();
    }

    /** Parameters in the rewritten SQL. */
    public int parameterCount() {
        return plan.parameterCount();
    }

    /** The fenced table concerned, if any. */
    public Optional<String> table() {
        return Optional.ofNullable(plan.table());
    }

    /** Whether it only reads. */
    public boolean isRead() {
        return plan.isRead();
    }

    /**
     * The refusal of this statement, as {@code FencedDataSource} words it, quoting {@code sqlAsWritten}
     * (the application's own text, before any translation of its markers): {@code NO_LEASE} without a
     * fence in context; the reason it cannot be rewritten; {@code TOKEN_WOULD_BE_INLINED} for a
     * rewritable write sent as text without parameters (a batch of SQL strings).
     */
    public FencingRefusedException refusal(Optional<Fence> inContext, String sqlAsWritten) {
        String table = plan.table() == null ? "(named in it)" : plan.table();
        if (inContext.isEmpty()) {
            return new FencingRefusedException(Reason.NO_LEASE, "it writes fenced table " + table
                    + " and no lease is in context", sqlAsWritten, null);
        }
        if (plan.kind() == Kind.REWRITTEN) {
            return new FencingRefusedException(Reason.TOKEN_WOULD_BE_INLINED, "a write to fenced table " + table
                    + " sent as text without parameters would need the token inlined; use a statement with bind "
                    + "markers", sqlAsWritten, inContext.get(), null);
        }
        return new FencingRefusedException(plan.reason(), plan.why(), sqlAsWritten, inContext.get(), null);
    }

    /**
     * {@code error} as the {@link StaleTokenException} of this statement, quoting {@code sqlAsWritten},
     * when it is the database's stale-token error.
     */
    public Optional<StaleTokenException> stale(Throwable error, Fence fence, String sqlAsWritten) {
        if (fence == null || !StaleErrors.isStale(error)) {
            return Optional.empty();
        }
        return Optional.of(new StaleTokenException(fence, plan.table() == null ? "a fenced table" : plan.table(),
                sqlAsWritten, error));
    }

    @Override
    public String toString() {
        return plan.toString();
    }
}
