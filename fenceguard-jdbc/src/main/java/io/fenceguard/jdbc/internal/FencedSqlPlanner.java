package io.fenceguard.jdbc.internal;

import io.fenceguard.core.Fence;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.FencingRefusedException;
import io.fenceguard.jdbc.FencingRefusedException.Reason;
import io.fenceguard.jdbc.SqlDialect;
import io.fenceguard.jdbc.StaleTokenException;
import java.util.Objects;
import java.util.Optional;

/**
 * The JDBC module's rewrite of SQL writes, for other drivers' fences (the R2DBC one in
 * {@code fenceguard-reactor}): the same rules, the same plan cache, the same refusals and stale-token
 * errors as {@code FencedDataSource}. SQL comes with JDBC's {@code ?} markers; the caller translates its
 * driver's markers. Thread-safe.
 */
public final class FencedSqlPlanner {

    private final StatementRewriter rewriter;
    private final PlanCache plans;

    private FencedSqlPlanner(FencingConfig config, SqlDialect dialect) {
        this.rewriter = new StatementRewriter(config, dialect);
        this.plans = new PlanCache(config.planCacheSize());
    }

    public static FencedSqlPlanner of(FencingConfig config, SqlDialect dialect) {
        return new FencedSqlPlanner(Objects.requireNonNull(config, "config"), Objects.requireNonNull(dialect, "dialect"));
    }

    /** The plan for {@code sql}, from the cache after the first time. */
    public Plan plan(String sql) {
        return new Plan(plans.get(sql, rewriter::plan));
    }

    /** Whether {@code error}, or anything it wraps, is the database's stale-token error (SQLSTATE 40F01). */
    public static boolean isStale(Throwable error) {
        return StaleErrors.isStale(error);
    }

    /** What to do with one SQL string. */
    public static final class Plan {

        /** Pass it through as written; run the rewrite with the token bound; or refuse it. */
        public enum Kind { PASS_THROUGH, REWRITTEN, NOT_REWRITABLE }

        private final RewritePlan plan;

        private Plan(RewritePlan plan) {
            this.plan = plan;
        }

        public Kind kind() {
            return Kind.valueOf(plan.kind().name());
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

        /** The 1-based positions in the rewritten SQL that the application's parameter {@code index} (1-based) binds. */
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
            if (plan.kind() == RewritePlan.Kind.REWRITTEN) {
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
}
