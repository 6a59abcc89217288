package io.fenceguard.jdbc.sql;

import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.SqlDialect;
import io.fenceguard.jdbc.internal.sql.PlanCache;
import io.fenceguard.jdbc.internal.sql.StaleErrors;
import io.fenceguard.jdbc.internal.sql.StatementPlanner;
import java.util.Objects;

/**
 * The fencing of SQL text as {@code FencedDataSource} does it, for other drivers' fences (the R2DBC one
 * in {@code fenceguard-reactor}): the same rules, the same plan cache, the same refusals and stale-token
 * errors. Each SQL string gets a {@link SqlFencePlan}: pass it through, prepare its rewrite with the
 * token bound, or refuse it.
 *
 * <p>SQL comes with JDBC's {@code ?} markers; the caller translates its driver's markers. The catalog is
 * not read here: the configured tables are fenced as configured. Thread-safe.
 */
public final class SqlFencePlanner {

    private final StatementPlanner planner;
    private final PlanCache plans;

    private SqlFencePlanner(FencingConfig config, SqlDialect dialect) {
        this.planner = new StatementPlanner(config, dialect);
        this.plans = new PlanCache(config.planCacheSize());
    }

    /** The planner for {@code config}'s fenced tables on a database of {@code dialect}. */
    public static SqlFencePlanner of(FencingConfig config, SqlDialect dialect) {
        return new SqlFencePlanner(Objects.requireNonNull(config, "config"), Objects.requireNonNull(dialect, "dialect"));
    }

    /** The plan for {@code sql}, from the cache after the first time. */
    public SqlFencePlan plan(String sql) {
        return new SqlFencePlan(plans.get(sql, planner::plan));
    }

    /** Whether {@code error}, or anything it wraps, is the database's stale-token error (SQLSTATE 40F01). */
    public static boolean isStale(Throwable error) {
        return StaleErrors.isStale(error);
    }
}
