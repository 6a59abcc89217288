package io.fenceguard.jdbc.internal;

import io.fenceguard.core.GuardException;
import io.fenceguard.jdbc.Fence;
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

    public Connection wrap(Connection raw) throws SQLException {
        try {
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

    /** The fence in context, checked to be valid; empty without a lease or inside {@code Unfenced}. */
    Optional<Fence> fence(String sql) throws SQLException {
        Optional<Fence> fence = config.fenceSource().current();
        if (fence.isPresent()) {
            try {
                fence.get().ensureValid();
            } catch (GuardException e) {
                throw new FencingRefusedException(Reason.LEASE_LOST, e.getMessage(), sql, e);
            }
        }
        return fence;
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
