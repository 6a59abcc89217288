package io.fenceguard.jdbc.internal.proxy;

import io.fenceguard.core.Fence;
import io.fenceguard.jdbc.FencingRefusedException;
import io.fenceguard.jdbc.FencingRefusedException.Reason;
import io.fenceguard.jdbc.ClaimMode;
import io.fenceguard.jdbc.SqlDialect;
import io.fenceguard.jdbc.Unfenced;
import io.fenceguard.jdbc.internal.sql.HighWaterClaims;
import io.fenceguard.jdbc.internal.sql.SessionSyntax;
import io.fenceguard.jdbc.internal.sql.StatementPlan;
import io.fenceguard.jdbc.sql.SqlFencePlan;
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
 * tracks which fence has claimed the mark in the current transaction.
 */
final class ConnectionHandler extends RefusalReportingHandler {

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
    /** The fence whose high-water claim the current transaction holds; confined to the connection's user. */
    private Fence claimed;

    ConnectionHandler(JdbcGuard guard, Connection raw, SqlDialect dialect) {
        this.guard = guard;
        this.raw = raw;
        this.dialect = dialect;
        this.session = SessionSyntax.Tracker.of(raw, dialect);
        this.sessionToken = guard.config().triggerMode() && dialect != SqlDialect.H2 ? new SessionToken(dialect) : null;
    }

    /** The plan for {@code sql} as this connection's database and session read it. */
    StatementPlan plan(String sql) throws SQLException {
        return guard.plan(sql, raw, dialect, session);
    }

    void bind(Connection proxy) {
        this.proxy = proxy;
    }

    @Override
    Object dispatch(Object self, Method method, Object[] args) throws Throwable {
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
                return statement(Invocations.call(raw, method, args), Statement.class, null, false, null);
            case "claimHighWaterMark":
                claimHighWaterMark();
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
                return DriverObjects.guard(this, method, Invocations.call(raw, method, args));
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
        return (Statement) statement(rawStatement, Statement.class, null, false, null);
    }

    private Object prepare(Method method, Object[] args, Class<? extends Statement> type) throws Throwable {
        String sql = (String) args[0];
        StatementPlan plan = plan(sql);
        // only a statement prepared from its text alone can take a claim in front (no generated keys asked)
        boolean claimable = type == PreparedStatement.class && args.length == 1 && claimsTravelWithStatements();
        if (plan.kind() == SqlFencePlan.Kind.PASS_THROUGH) {
            return statement(Invocations.call(raw, method, args), type, plan, false, claimable ? sql : null);
        }
        if (Unfenced.isActive()) {
            return statement(Invocations.call(raw, method, args), type, plan, true, null);
        }
        if (plan.kind() == SqlFencePlan.Kind.NOT_REWRITABLE) {
            throw refusal(plan, JdbcGuard.fenceInContext());
        }
        if (type == CallableStatement.class) {
            throw new FencingRefusedException(Reason.UNSUPPORTED_FORM,
                    "prepareCall cannot run a fenced write; use prepareStatement", sql,
                    JdbcGuard.fenceInContext().orElse(null), null);
        }
        Object[] rewritten = args.clone();
        rewritten[0] = plan.rewrittenSql();
        return statement(Invocations.call(raw, method, rewritten), type, plan, false,
                claimable ? plan.rewrittenSql() : null);
    }

    private Object statement(Object rawStatement, Class<? extends Statement> type, StatementPlan plan,
                             boolean preparedUnfenced, String claimableSql) {
        StatementHandler handler = new StatementHandler(this, (Statement) rawStatement, plan, preparedUnfenced,
                claimableSql);
        Statement fenced = (Statement) Proxy.newProxyInstance(JdbcGuard.class.getClassLoader(),
                new Class<?>[] {type}, handler);
        handler.bind(fenced);
        synchronized (statements) {
            statements.put((Statement) rawStatement, fenced);
        }
        return fenced;
    }

    /** Why a fenced write that cannot be sent is refused, given the fence in context, if any. */
    static FencingRefusedException refusal(StatementPlan plan, Optional<Fence> inContext) {
        if (plan.kind() == SqlFencePlan.Kind.NOT_REWRITABLE && plan.reason() == Reason.PROCEDURAL) {
            return new FencingRefusedException(Reason.PROCEDURAL, plan.why(), plan.sql(), inContext.orElse(null), null);
        }
        if (inContext.isEmpty()) {
            return new FencingRefusedException(Reason.NO_LEASE, "it writes fenced table "
                    + (plan.table() == null ? "(named in it)" : plan.table())
                    + " and no lease is in context; run admin work inside Unfenced.run(...)", plan.sql(), null);
        }
        if (plan.kind() == SqlFencePlan.Kind.REWRITTEN) {
            return new FencingRefusedException(Reason.TOKEN_WOULD_BE_INLINED, "a plain Statement write to fenced table "
                    + plan.table() + " would need the token inlined; use a PreparedStatement", plan.sql(),
                    inContext.get(), null);
        }
        return new FencingRefusedException(plan.reason(), plan.why(), plan.sql(), inContext.get(), null);
    }

    Connection proxy() {
        return proxy;
    }

    @Override
    JdbcGuard guard() {
        return guard;
    }

    /** What a statement about to run needs of the mark ({@link ClaimMode#FIRST_STATEMENT}). */
    enum ClaimStep {
        /** Nothing: no lease, another claim mode, a read in auto-commit, or claimed in this transaction already. */
        NONE,
        /** The first statement of the transaction under this fence: claim before it. */
        CLAIM,
        /** An auto-commit write: a transaction of its own with its claim ({@link #inOwnTransaction}). */
        OWN_TRANSACTION
    }

    /**
     * Runs before every statement: sets trigger mode's session token, and says what the mark needs in
     * {@link ClaimMode#FIRST_STATEMENT}: a claim once per transaction and fence.
     */
    ClaimStep claimStep(Optional<Fence> fence, boolean read) throws SQLException {
        if (sessionToken != null) {
            sessionToken.before(raw, fence, read);
        }
        if (fence.isEmpty() || guard.config().claimMode() != ClaimMode.FIRST_STATEMENT || Unfenced.isActive()) {
            return ClaimStep.NONE;
        }
        if (raw.getAutoCommit()) {
            return read ? ClaimStep.NONE : ClaimStep.OWN_TRANSACTION;
        }
        return fence.get().equals(claimed) ? ClaimStep.NONE : ClaimStep.CLAIM;
    }

    /** Claims the mark in the current transaction with its own statement. */
    void claim(Fence fence) throws SQLException {
        HighWaterClaims.claim(raw, dialect, guard.config().highWaterTable(), guard.staleFunction(raw), fence);
        claimed(fence);
    }

    /** The current transaction holds the high-water claim of {@code fence} (also when it went with a statement). */
    void claimed(Fence fence) throws SQLException {
        if (!raw.getAutoCommit()) {
            claimed = fence;
        }
    }

    /**
     * Whether a claim can travel with the statement it precedes, in one round trip: PostgreSQL's driver
     * sends the statements of one multi-statement text together and answers them in order.
     */
    boolean claimsTravelWithStatements() {
        return dialect == SqlDialect.POSTGRESQL && guard.config().claimMode() == ClaimMode.FIRST_STATEMENT;
    }

    /** The claim's SQL as it goes in front of a statement (its parameters: resource, token). */
    String claimSql() throws SQLException {
        return HighWaterClaims.sql(dialect, guard.config().highWaterTable(), guard.staleFunction(raw));
    }

    /** The high-water table, for naming it in a stale claim. */
    String highWaterTable() {
        return guard.config().highWaterTable();
    }

    Connection raw() {
        return raw;
    }

    /** The fenced statement a driver statement made on its behalf answers for (its result sets' getStatement). */
    void alias(Statement rawStatement, Statement fenced) {
        synchronized (statements) {
            statements.put(rawStatement, fenced);
        }
    }

    /**
     * Runs {@code work} in a transaction of its own; with {@code claimFirst} the mark is claimed first,
     * otherwise {@code work} claims it itself (with its statement).
     */
    <T> T inOwnTransaction(Fence fence, boolean claimFirst, SqlCall<T> work) throws Throwable {
        raw.setAutoCommit(false);
        try {
            if (claimFirst) {
                HighWaterClaims.claim(raw, dialect, guard.config().highWaterTable(), guard.staleFunction(raw), fence);
            }
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

    private void claimHighWaterMark() throws SQLException {
        String what = "high-water claim";
        Optional<Fence> fence = guard.fence(what);
        if (fence.isEmpty()) {
            throw new FencingRefusedException(Reason.NO_LEASE, "no lease is in context to claim the mark for", what,
                    null);
        }
        HighWaterClaims.claim(raw, dialect, guard.config().highWaterTable(), guard.staleFunction(raw), fence.get());
        if (!raw.getAutoCommit()) {
            claimed = fence.get();
        }
    }

    @FunctionalInterface
    interface SqlCall<T> {
        T call() throws Throwable;
    }
}
