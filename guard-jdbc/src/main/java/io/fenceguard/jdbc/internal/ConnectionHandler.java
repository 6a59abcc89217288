package io.fenceguard.jdbc.internal;

import io.fenceguard.core.Fence;
import io.fenceguard.jdbc.FencingRefusedException;
import io.fenceguard.jdbc.FencingRefusedException.Reason;
import io.fenceguard.jdbc.GateMode;
import io.fenceguard.jdbc.SqlDialect;
import io.fenceguard.jdbc.Unfenced;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;

/**
 * Behind every fenced {@link Connection}: prepares rewritten SQL, hands out fenced statements and
 * tracks which fence has claimed the gate in the current transaction.
 */
final class ConnectionHandler implements InvocationHandler {

    private final JdbcGuard guard;
    private final Connection raw;
    private final SqlDialect dialect;
    /** How this connection's session reads SQL text (sql_mode, standard_conforming_strings). */
    private final SessionSyntax.Tracker session;
    /** Trigger mode's session token, or {@code null} when trigger mode is off. */
    private final SessionToken sessionToken;
    private Connection proxy;
    /** The fenced statement handed out for each driver statement, so that every path leads to the same one. */
    private final Map<Statement, Statement> statements = new WeakHashMap<>();
    /** The fence whose gate claim the current transaction holds; confined to the connection's user. */
    private Fence claimed;

    ConnectionHandler(JdbcGuard guard, Connection raw, SqlDialect dialect) {
        this.guard = guard;
        this.raw = raw;
        this.dialect = dialect;
        this.session = SessionSyntax.Tracker.of(raw, dialect);
        this.sessionToken = guard.config().triggerMode() && dialect != SqlDialect.H2 ? new SessionToken(dialect) : null;
    }

    /** The plan for {@code sql} as this connection's database and session read it. */
    RewritePlan plan(String sql) throws SQLException {
        return guard.plan(sql, raw, dialect, session);
    }

    void bind(Connection proxy) {
        this.proxy = proxy;
    }

    @Override
    public Object invoke(Object self, Method method, Object[] args) throws Throwable {
        try {
            return dispatch(self, method, args);
        } catch (Throwable thrown) {
            guard.reportRefusal(thrown);
            throw thrown;
        }
    }

    private Object dispatch(Object self, Method method, Object[] args) throws Throwable {
        Object wrapperResult = Invocations.wrapperMethod(self, raw, method, args);
        if (wrapperResult != Invocations.NOT_HANDLED) {
            return wrapperResult;
        }
        switch (method.getName()) {
            case "prepareStatement":
                return prepare(method, args, PreparedStatement.class);
            case "prepareCall":
                return prepare(method, args, CallableStatement.class);
            case "createStatement":
                return statement(Invocations.call(raw, method, args), Statement.class, null, false);
            case "claimGate":
                claimGate();
                return null;
            case "dialect":
                return dialect;
            case "commit", "rollback", "setAutoCommit", "close":
                claimed = null;
                if (sessionToken != null) {
                    sessionToken.on(method.getName(), raw);
                }
                return Invocations.call(raw, method, args);
            default:
                return DriverObjects.guard(this, Invocations.call(raw, method, args));
        }
    }

    /** A closed statement leaves the map (a value holds its key, so the map would not drop it itself). */
    void forget(Statement rawStatement) {
        synchronized (statements) {
            statements.remove(rawStatement);
        }
    }

    /** The fenced connection for a connection a driver object names: only this one's raw connection. */
    Connection proxyOf(Connection connection) throws SQLException {
        if (connection == raw || connection == proxy) {
            return proxy;
        }
        throw new FencingRefusedException(Reason.RAW_ACCESS, "a driver object named a connection other than"
                + " the fenced one it came from", "getConnection()", JdbcGuard.fenceInContext().orElse(null), null);
    }

    /**
     * The fenced statement for a driver statement reached through another object (a result set's
     * {@code getStatement()}): the proxy this connection handed out for it, or, for one the driver made
     * itself (metadata queries), a fenced plain {@code Statement} over it.
     */
    Statement adopt(Statement rawStatement) {
        synchronized (statements) {
            Statement known = statements.get(rawStatement);
            if (known != null) {
                return known;
            }
        }
        return (Statement) statement(rawStatement, Statement.class, null, false);
    }

    private Object prepare(Method method, Object[] args, Class<? extends Statement> type) throws Throwable {
        String sql = (String) args[0];
        RewritePlan plan = plan(sql);
        if (plan.kind() == RewritePlan.Kind.PASS_THROUGH) {
            return statement(Invocations.call(raw, method, args), type, plan, false);
        }
        if (Unfenced.isActive()) {
            return statement(Invocations.call(raw, method, args), type, plan, true);
        }
        if (plan.kind() == RewritePlan.Kind.NOT_REWRITABLE) {
            throw refusal(plan, JdbcGuard.fenceInContext());
        }
        if (type == CallableStatement.class) {
            throw new FencingRefusedException(Reason.UNSUPPORTED_FORM,
                    "prepareCall cannot run a fenced write; use prepareStatement", sql,
                    JdbcGuard.fenceInContext().orElse(null), null);
        }
        Object[] rewritten = args.clone();
        rewritten[0] = plan.rewrittenSql();
        return statement(Invocations.call(raw, method, rewritten), type, plan, false);
    }

    private Object statement(Object rawStatement, Class<? extends Statement> type, RewritePlan plan,
                             boolean preparedUnfenced) {
        StatementHandler handler = new StatementHandler(this, (Statement) rawStatement, plan, preparedUnfenced);
        Statement fenced = (Statement) Proxy.newProxyInstance(JdbcGuard.class.getClassLoader(),
                new Class<?>[] {type}, handler);
        synchronized (statements) {
            statements.put((Statement) rawStatement, fenced);
        }
        return fenced;
    }

    /** Why a fenced write that cannot be sent is refused, given the fence in context, if any. */
    static FencingRefusedException refusal(RewritePlan plan, Optional<Fence> inContext) {
        if (plan.kind() == RewritePlan.Kind.NOT_REWRITABLE && plan.reason() == Reason.PROCEDURAL) {
            return new FencingRefusedException(Reason.PROCEDURAL, plan.why(), plan.sql(), inContext.orElse(null), null);
        }
        if (inContext.isEmpty()) {
            return new FencingRefusedException(Reason.NO_LEASE, "it writes fenced table "
                    + (plan.table() == null ? "(named in it)" : plan.table())
                    + " and no lease is in context; run admin work inside Unfenced.run(...)", plan.sql(), null);
        }
        if (plan.kind() == RewritePlan.Kind.REWRITTEN) {
            return new FencingRefusedException(Reason.TOKEN_WOULD_BE_INLINED, "a plain Statement write to fenced table "
                    + plan.table() + " would need the token inlined; use a PreparedStatement", plan.sql(),
                    inContext.get(), null);
        }
        return new FencingRefusedException(plan.reason(), plan.why(), plan.sql(), inContext.get(), null);
    }

    Connection proxy() {
        return proxy;
    }

    JdbcGuard guard() {
        return guard;
    }

    /**
     * Runs before every statement: in {@link GateMode#FIRST_STATEMENT}, claims the gate once per
     * transaction and fence. Returns true when the caller must run the statement in a transaction of
     * its own (an auto-commit write), which {@link #inOwnTransaction} provides.
     */
    boolean prepareGate(Optional<Fence> fence, boolean read) throws SQLException {
        if (sessionToken != null) {
            sessionToken.before(raw, fence, read);
        }
        if (fence.isEmpty() || guard.config().gateMode() != GateMode.FIRST_STATEMENT || Unfenced.isActive()) {
            return false;
        }
        if (raw.getAutoCommit()) {
            return !read;
        }
        if (!fence.get().equals(claimed)) {
            GateClaims.claim(raw, dialect, guard.config().gateTable(), guard.staleFunction(raw), fence.get());
            claimed = fence.get();
        }
        return false;
    }

    <T> T inOwnTransaction(Fence fence, SqlCall<T> work) throws Throwable {
        raw.setAutoCommit(false);
        try {
            GateClaims.claim(raw, dialect, guard.config().gateTable(), guard.staleFunction(raw), fence);
            T result = work.call();
            raw.commit();
            return result;
        } catch (Throwable e) {
            try {
                raw.rollback();
            } catch (SQLException rollbackFailure) {
                e.addSuppressed(rollbackFailure);
            }
            throw e;
        } finally {
            raw.setAutoCommit(true);
        }
    }

    private void claimGate() throws SQLException {
        String what = "gate claim";
        Optional<Fence> fence = guard.fence(what);
        if (fence.isEmpty()) {
            throw new FencingRefusedException(Reason.NO_LEASE, "no lease is in context to claim the gate for", what,
                    null);
        }
        GateClaims.claim(raw, dialect, guard.config().gateTable(), guard.staleFunction(raw), fence.get());
        if (!raw.getAutoCommit()) {
            claimed = fence.get();
        }
    }

    @FunctionalInterface
    interface SqlCall<T> {
        T call() throws Throwable;
    }
}
