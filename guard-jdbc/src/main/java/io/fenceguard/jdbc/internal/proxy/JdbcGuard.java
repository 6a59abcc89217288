package io.fenceguard.jdbc.internal.proxy;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.jdbc.FencedConnection;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.FencingConfigurationException;
import io.fenceguard.jdbc.FencingRefusedException;
import io.fenceguard.jdbc.FencingRefusedException.Reason;
import io.fenceguard.jdbc.SqlDialect;
import io.fenceguard.jdbc.Unfenced;
import io.fenceguard.jdbc.internal.catalog.Catalog;
import io.fenceguard.jdbc.internal.sql.PlanCache;
import io.fenceguard.jdbc.internal.sql.SessionSyntax;
import io.fenceguard.jdbc.internal.sql.StatementPlan;
import io.fenceguard.jdbc.internal.sql.StatementPlanner;
import io.fenceguard.jdbc.sql.SqlFencePlan;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

/** The shared state of one fenced DataSource: configuration, dialect, plan cache. Thread-safe. */
public final class JdbcGuard {

    private final FencingConfig config;
    private final PlanCache plans;
    /** Plans for sessions whose settings differ from the dialect's defaults. */
    private final java.util.Map<SessionSyntax, PlanCache> otherPlans = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile StatementPlanner planner;
    /** Why the last catalog check failed, while none has passed. */
    private volatile FencingConfigurationException catalogFailure;

    public JdbcGuard(FencingConfig config) {
        this.config = config;
        this.plans = new PlanCache(config.planCacheSize());
        if (!config.verifyCatalog() || config.tables().isEmpty()) {
            config.dialect().ifPresent(d -> planner = new StatementPlanner(config, d));
        }
    }

    public FencingConfig config() {
        return config;
    }

    /** Refusals already told to the listener: one crosses several proxies on its way out. */
    private final java.util.Set<Throwable> reported =
            java.util.Collections.synchronizedSet(java.util.Collections.newSetFromMap(new java.util.WeakHashMap<>()));

    /** Tells the configured listener of {@code thrown} once, if it is a refusal of the guard's. */
    void reportRefusal(Throwable thrown) {
        if (!(thrown instanceof io.fenceguard.jdbc.FencingRefusedException
                || thrown instanceof io.fenceguard.jdbc.StaleTokenException) || !reported.add(thrown)) {
            return;
        }
        try {
            config.refusalListener().refused(refusal((java.sql.SQLException) thrown));
        } catch (RuntimeException e) {
            System.getLogger(JdbcGuard.class.getName()).log(System.Logger.Level.WARNING,
                    "statement refusal listener failed; ignored", e);
        }
    }

    /** A refusal of the guard's as every layer reports one. */
    static io.fenceguard.core.Refusal refusal(java.sql.SQLException thrown) {
        if (thrown instanceof io.fenceguard.jdbc.StaleTokenException stale) {
            return io.fenceguard.core.Refusal.builder(io.fenceguard.core.Refusal.Layer.JDBC, "stale")
                    .fence(stale.fence()).where(stale.sql()).detail(stale.getMessage()).original(stale).build();
        }
        io.fenceguard.jdbc.FencingRefusedException refused = (io.fenceguard.jdbc.FencingRefusedException) thrown;
        return io.fenceguard.core.Refusal.builder(io.fenceguard.core.Refusal.Layer.JDBC,
                        refused.reason().name().toLowerCase(java.util.Locale.ROOT))
                .fence(refused.fence().orElse(null)).where(refused.sql()).detail(refused.getMessage())
                .original(refused).build();
    }

    /**
     * {@code raw} as a fenced connection; a connection that is fenced already (one of ours, or a
     * wrapper of one) comes back as it is, so that no composition of DataSources fences twice.
     */
    public Connection wrap(Connection raw) throws SQLException {
        try {
            if (Wrapping.isFenced(raw)) {
                return raw;
            }
            StatementPlanner current = planner;
            if (current == null && !(Unfenced.isActive() && config.verifyCatalog())) {
                current = checkedPlanner(raw);
            }
            // Before the catalog check has passed (a connection inside Unfenced, or before the
            // application's migrations have created the fenced tables), the connection is handed out
            // and each statement tries the check again; see plan().
            SqlDialect dialect = current != null ? current.dialect() : dialect(raw);
            ConnectionHandler handler = new ConnectionHandler(this, raw, dialect);
            Connection proxy = (Connection) Proxy.newProxyInstance(JdbcGuard.class.getClassLoader(),
                    new Class<?>[] {Connection.class, FencedConnection.class}, handler);
            handler.bind(proxy);
            return proxy;
        } catch (SQLException | RuntimeException e) {
            raw.close();
            throw e;
        }
    }

    public String explain(String sql, Connection raw) throws SQLException {
        return planner(raw).rewrite(sql);
    }

    /** The SQL a PreparedStatement for {@code sql} is prepared with, from the plan cache. */
    public String preparedSql(String sql) {
        return plan(sql).rewrittenSql();
    }

    StatementPlan plan(String sql) {
        return plans.get(sql, planner::plan);
    }

    /**
     * The plan for {@code sql} on {@code raw} as the session of that connection reads it. Before the
     * catalog check has passed, inside {@code Unfenced} a plan of the configuration as written (not
     * cached; Unfenced sends every statement as written anyway), outside it the check runs first. Plans
     * are cached per session settings (almost always the dialect's defaults, one lookup more otherwise).
     */
    StatementPlan plan(String sql, Connection raw, SqlDialect dialect, SessionSyntax.Tracker session)
            throws SQLException {
        session.observe(sql);
        SessionSyntax syntax = session.current();
        StatementPlanner current = planner;
        if (current == null) {
            if (Unfenced.isActive()) {
                return new StatementPlanner(config, dialect).plan(sql, syntax);
            }
            current = checkedPlanner(raw);
            if (current == null) {
                // The configuration does not fit the catalog (yet): a plain read of other tables may
                // run (start-up checks, health probes); anything else fails with why.
                StatementPlan provisional = new StatementPlanner(config, dialect).plan(sql, syntax);
                if (provisional.kind() == SqlFencePlan.Kind.PASS_THROUGH && provisional.isRead()) {
                    return provisional;
                }
                throw catalogFailure;
            }
        }
        if (syntax.equals(SessionSyntax.defaults(current.dialect()))) {
            return plans.get(sql, current::plan);
        }
        StatementPlanner checked = current;
        return otherPlans.computeIfAbsent(syntax, s -> new PlanCache(config.planCacheSize()))
                .get(sql, text -> checked.plan(text, syntax));
    }

    /** The checked planner, or {@code null} when the check fails (kept in {@link #catalogFailure}). */
    private StatementPlanner checkedPlanner(Connection raw) throws SQLException {
        try {
            return planner(raw);
        } catch (FencingConfigurationException e) {
            catalogFailure = e;
            return null;
        }
    }

    /** The schema-qualified stale function, after the catalog check. */
    String staleFunction(Connection raw) throws SQLException {
        return planner(raw).staleFunction();
    }

    private SqlDialect dialect(Connection raw) throws SQLException {
        return config.dialect().isPresent() ? config.dialect().get()
                : SqlDialect.fromProductName(raw.getMetaData().getDatabaseProductName());
    }

    int cachedPlans() {
        return plans.size();
    }

    /**
     * The fence of the innermost lease in {@link LeaseContext}, after that lease's own validity check;
     * empty without a lease.
     *
     * @throws FencingRefusedException ({@link Reason#LEASE_LOST}) when the lease is lost or released
     */
    Optional<Fence> fence(String sql) throws SQLException {
        Optional<Lease> lease = LeaseContext.current();
        if (lease.isEmpty()) {
            return Optional.empty();
        }
        try {
            lease.get().ensureValid();
        } catch (FenceguardException e) {
            throw new FencingRefusedException(Reason.LEASE_LOST, e.getMessage(), sql, lease.get().fence(), e);
        }
        return Optional.of(lease.get().fence());
    }

    /** The fence in context without the validity check: for naming it in a refusal. */
    static Optional<Fence> fenceInContext() {
        return LeaseContext.current().map(Lease::fence);
    }

    private StatementPlanner planner(Connection raw) throws SQLException {
        StatementPlanner current = planner;
        if (current == null) {
            synchronized (this) {
                if (planner == null) {
                    planner = build(raw);
                }
                current = planner;
            }
        }
        return current;
    }

    /**
     * Reads the catalog again on {@code raw} and fences by what it says from now on; throws
     * {@link io.fenceguard.jdbc.FencingConfigurationException} on a misconfiguration, keeping the
     * previous state.
     */
    public void verify(Connection raw) throws SQLException {
        StatementPlanner fresh = build(raw);
        synchronized (this) {
            planner = fresh;
            plans.clear();
            otherPlans.clear();
        }
    }

    /** The planner for the dialect of {@code raw}, after the catalog check unless it is off. */
    private StatementPlanner build(Connection raw) throws SQLException {
        SqlDialect dialect = dialect(raw);
        if (!config.verifyCatalog() || config.tables().isEmpty()) {
            return new StatementPlanner(config, dialect);
        }
        return new StatementPlanner(dialect, Catalog.read(raw, dialect, config));
    }
}
