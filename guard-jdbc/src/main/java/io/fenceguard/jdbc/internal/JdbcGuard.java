package io.fenceguard.jdbc.internal;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.jdbc.FencedConnection;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.FencingRefusedException;
import io.fenceguard.jdbc.FencingRefusedException.Reason;
import io.fenceguard.jdbc.SqlDialect;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

/** The shared state of one fenced DataSource: configuration, dialect, plan cache. Thread-safe. */
public final class JdbcGuard {

    private final FencingConfig config;
    private final PlanCache plans;
    private volatile StatementRewriter rewriter;

    public JdbcGuard(FencingConfig config) {
        this.config = config;
        this.plans = new PlanCache(config.planCacheSize());
        config.dialect().ifPresent(d -> rewriter = new StatementRewriter(config, d));
    }

    public FencingConfig config() {
        return config;
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
            StatementRewriter current = rewriter(raw);
            ConnectionHandler handler = new ConnectionHandler(this, raw, current.dialect());
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
        return rewriter(raw).rewrite(sql);
    }

    /** The SQL a PreparedStatement for {@code sql} is prepared with, from the plan cache. */
    public String preparedSql(String sql) {
        return plan(sql).rewrittenSql();
    }

    RewritePlan plan(String sql) {
        return plans.get(sql, rewriter::plan);
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

    private StatementRewriter rewriter(Connection raw) throws SQLException {
        StatementRewriter current = rewriter;
        if (current == null) {
            SqlDialect dialect = SqlDialect.fromProductName(raw.getMetaData().getDatabaseProductName());
            synchronized (this) {
                if (rewriter == null) {
                    rewriter = new StatementRewriter(config, dialect);
                }
                current = rewriter;
            }
        }
        return current;
    }
}
