package io.fenceguard.jdbc.internal.proxy;

import io.fenceguard.core.Fence;
import io.fenceguard.jdbc.FencingRefusedException;
import io.fenceguard.jdbc.FencingRefusedException.Reason;
import io.fenceguard.jdbc.Unfenced;
import io.fenceguard.jdbc.internal.sql.StaleErrors;
import io.fenceguard.jdbc.internal.sql.StatementPlan;
import io.fenceguard.jdbc.sql.SqlFencePlan;
import java.lang.reflect.Method;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

/**
 * Behind every fenced Statement, PreparedStatement and CallableStatement: maps the application's
 * parameter indexes onto the rewritten SQL, binds the token, checks the lease, claims the mark and
 * turns the database's stale-token error into {@link io.fenceguard.jdbc.StaleTokenException}.
 */
final class StatementHandler extends RefusalReportingHandler {

    private final ConnectionHandler connection;
    private final Statement raw;
    /** The prepared statement's plan; {@code null} for a plain Statement. */
    private final StatementPlan plan;
    private final boolean preparedUnfenced;
    private final boolean remaps;
    /** The batch holds entries admitted only because they were added inside {@code Unfenced}. */
    private boolean batchNeedsUnfenced;
    /** The fence the batch's entries were bound to, if any. */
    private Fence batchFence;
    /**
     * The high-water claim sent with this statement's executions, when it can travel in front of it
     * ({@link ConnectionHandler#claimsTravelWithStatements()}); {@code null} otherwise.
     */
    private final ClaimWithStatement withClaim;
    /** This handler's proxy, for result sets of the claim's statement to name as theirs. */
    private Statement self;

    StatementHandler(ConnectionHandler connection, Statement raw, StatementPlan plan, boolean preparedUnfenced,
            String claimableSql) {
        this.connection = connection;
        this.raw = raw;
        this.plan = plan;
        this.preparedUnfenced = preparedUnfenced;
        this.remaps = plan != null && plan.kind() == SqlFencePlan.Kind.REWRITTEN && !preparedUnfenced;
        this.withClaim = claimableSql != null ? new ClaimWithStatement(connection, raw, claimableSql) : null;
    }

    void bind(Statement proxy) {
        this.self = proxy;
    }

    @Override
    JdbcGuard guard() {
        return connection.guard();
    }

    @Override
    Object dispatch(Object self, Method method, Object[] args) throws Throwable {
        // Parameter setters first: the most frequent calls, and none of them is a wrapper or execution method.
        if (remaps && isParameterSetter(method, args)) {
            bind(method, args);
            return null;
        }
        Object wrapperResult = Invocations.wrapperMethod(self, raw, method, args);
        if (wrapperResult != Invocations.NOT_HANDLED) {
            return wrapperResult;
        }
        String name = method.getName();
        boolean withSql = args != null && args.length > 0 && args[0] instanceof String;
        switch (name) {
            case "getConnection":
                return connection.proxy();
            case "close":
                connection.forget(raw);
                if (withClaim != null) {
                    withClaim.close();
                }
                return Invocations.call(raw, method, args);
            case "getResultSet", "getUpdateCount", "getLargeUpdateCount", "getMoreResults", "getGeneratedKeys",
                    "getWarnings", "clearWarnings":
                return DriverObjects.guard(connection, method,
                        Invocations.call(withClaim != null ? withClaim.resultSource() : raw, method, args));
            case "clearParameters":
                if (withClaim != null) {
                    withClaim.clearParameters();
                }
                return Invocations.call(raw, method, args);
            case "execute", "executeQuery", "executeUpdate", "executeLargeUpdate":
                return DriverObjects.guard(connection, method,
                        withSql ? executeText(method, args) : executePrepared(method, args));
            case "addBatch":
                return withSql ? addText(method, args) : addPrepared(method, args);
            case "executeBatch", "executeLargeBatch":
                try {
                    checkBatchScope();
                    return executeBatch(method, args);
                } finally {
                    resetBatchScope();
                }
            case "clearBatch":
                resetBatchScope();
                return Invocations.call(raw, method, args);
            case "getParameterMetaData":
                ParameterMetaData driver = (ParameterMetaData) Invocations.call(raw, method, args);
                return remaps ? new RemappedParameterMetaData(driver, plan) : driver;
            default:
                if (withClaim != null && isParameterSetter(method, args)) {
                    Object result = Invocations.call(raw, method, args);
                    withClaim.recordSetter(method, args);   // only what the driver took
                    return result;
                }
                return DriverObjects.guard(connection, method, Invocations.call(raw, method, args));
        }
    }

    private Object executeText(Method method, Object[] args) throws Throwable {
        StatementPlan textPlan = checkText((String) args[0]);
        return run(textPlan, method, args, textPlan.isRead());
    }

    private Object addText(Method method, Object[] args) throws Throwable {
        if (checkText((String) args[0]).kind() != SqlFencePlan.Kind.PASS_THROUGH) {
            batchNeedsUnfenced = true;
        }
        return Invocations.call(raw, method, args);
    }

    /** SQL given as text cannot take a bound token: a fenced write is only possible unfenced. */
    private StatementPlan checkText(String sql) throws SQLException {
        StatementPlan textPlan = connection.plan(sql);
        if (textPlan.kind() != SqlFencePlan.Kind.PASS_THROUGH && !Unfenced.isActive()) {
            throw ConnectionHandler.refusal(textPlan, JdbcGuard.fenceInContext());
        }
        return textPlan;
    }

    private Object executePrepared(Method method, Object[] args) throws Throwable {
        checkPrepared();
        if (remaps) {
            Fence fence = bindToken();
            return run(plan, method, args, false, Optional.of(fence));
        }
        return run(plan, method, args, plan.isRead());
    }

    private Object addPrepared(Method method, Object[] args) throws Throwable {
        checkPrepared();
        if (remaps) {
            Fence fence = bindToken();
            if (batchFence != null && !batchFence.equals(fence)) {
                throw batchRefusal("an entry was added under " + describe(batchFence) + " and this one under "
                        + describe(fence) + "; one batch runs under one lease");
            }
            batchFence = fence;
        } else if (preparedUnfenced && plan.kind() != SqlFencePlan.Kind.PASS_THROUGH) {
            batchNeedsUnfenced = true;
        }
        return Invocations.call(raw, method, args);
    }

    /**
     * The batch rule: every entry is decided when it is added, in the scope it is added in, and the
     * batch runs only in that scope. An entry admitted because it was added inside {@code Unfenced}
     * needs {@code Unfenced} at executeBatch; an entry bound to a lease's token needs the same lease
     * in context and no {@code Unfenced}. Otherwise the whole batch is refused: nothing is sent and the
     * batch is cleared.
     */
    private void checkBatchScope() throws SQLException {
        if (batchNeedsUnfenced && !Unfenced.isActive()) {
            throw batchRefusal("it holds writes to fenced tables added inside Unfenced and is executed outside it;"
                    + " execute it inside Unfenced");
        }
        if (batchFence != null) {
            if (Unfenced.isActive()) {
                throw batchRefusal("it holds writes fenced with " + describe(batchFence)
                        + " and is executed inside Unfenced; execute it under that lease");
            }
            Optional<Fence> now = connection.guard().fence(plan.sql());
            if (now.isEmpty() || !now.get().equals(batchFence)) {
                throw batchRefusal("its writes were bound to " + describe(batchFence) + " and it is executed under "
                        + now.map(StatementHandler::describe).orElse("no lease") + "; execute it under that lease");
            }
        }
    }

    private FencingRefusedException batchRefusal(String why) throws SQLException {
        resetBatchScope();
        raw.clearBatch();
        return new FencingRefusedException(Reason.BATCH_SCOPE, "the batch was refused, nothing was sent: " + why,
                plan == null ? "(statement batch)" : plan.sql(), JdbcGuard.fenceInContext().orElse(null), null);
    }

    private void resetBatchScope() {
        batchNeedsUnfenced = false;
        batchFence = null;
    }

    private static String describe(Fence fence) {
        return "the lease of '" + fence.resource() + "' with token " + fence.token();
    }

    private Object executeBatch(Method method, Object[] args) throws Throwable {
        if (withClaim != null) {
            withClaim.executionStarts();
        }
        if (plan != null) {
            checkPrepared();
        }
        StatementPlan batchPlan = plan != null ? plan : StatementPlan.passThrough("(statement batch)", false);
        if (remaps) {
            Optional<Fence> fence = connection.guard().fence(plan.sql());
            if (fence.isEmpty()) {
                throw ConnectionHandler.refusal(plan, Optional.empty());
            }
            return run(batchPlan, method, args, false, fence);
        }
        return run(batchPlan, method, args, false);
    }

    /** A statement prepared inside {@code Unfenced} must also run there, and vice versa. */
    private void checkPrepared() throws SQLException {
        if (plan == null || plan.kind() == SqlFencePlan.Kind.PASS_THROUGH) {
            return;
        }
        if (preparedUnfenced && !Unfenced.isActive()) {
            throw new FencingRefusedException(Reason.NO_LEASE,
                    "prepared inside Unfenced but executed outside it", plan.sql(), null);
        }
        if (!preparedUnfenced && Unfenced.isActive()) {
            throw new FencingRefusedException(Reason.UNSUPPORTED_FORM,
                    "prepared fenced but executed inside Unfenced; prepare it inside Unfenced", plan.sql(),
                    JdbcGuard.fenceInContext().orElse(null), null);
        }
    }

    private Fence bindToken() throws SQLException {
        Optional<Fence> fence = connection.guard().fence(plan.sql());
        if (fence.isEmpty()) {
            throw ConnectionHandler.refusal(plan, Optional.empty());
        }
        PreparedStatement prepared = (PreparedStatement) raw;
        long token = fence.get().token().value();
        for (int position : plan.tokenPositions()) {
            prepared.setLong(position, token);
            if (withClaim != null) {
                withClaim.recordToken(position, token);
            }
        }
        return fence.get();
    }

    private Object run(StatementPlan runPlan, Method method, Object[] args, boolean read) throws Throwable {
        Optional<Fence> fence = Unfenced.isActive() ? Optional.empty() : connection.guard().fence(runPlan.sql());
        return run(runPlan, method, args, read, fence);
    }

    private Object run(StatementPlan runPlan, Method method, Object[] args, boolean read, Optional<Fence> fence)
            throws Throwable {
        try {
            if (withClaim != null) {
                withClaim.executionStarts();
            }
            ConnectionHandler.ClaimStep step = connection.claimStep(fence, read);
            if (step == ConnectionHandler.ClaimStep.NONE) {
                return Invocations.call(raw, method, args);
            }
            boolean together = withClaim != null && withClaim.canRun(args);
            if (step == ConnectionHandler.ClaimStep.OWN_TRANSACTION) {
                return connection.inOwnTransaction(fence.get(), !together, () -> together
                        ? claimTogetherOrApart(fence.get(), method, args) : Invocations.call(raw, method, args));
            }
            if (!together) {
                connection.claim(fence.get());
                return Invocations.call(raw, method, args);
            }
            Object result = claimTogetherOrApart(fence.get(), method, args);
            connection.claimed(fence.get());
            return result;
        } catch (SQLException e) {
            throw StaleErrors.translate(e, fence.orElse(null), runPlan.table(), runPlan.sql());
        }
    }

    /**
     * The claim with the statement; when a parameter is not set (the driver refuses before sending anything),
     * the claim on its own and then the statement, so that the driver names the parameter as the caller numbers it.
     */
    private Object claimTogetherOrApart(Fence fence, Method method, Object[] args) throws Throwable {
        Object result = withClaim.execute(fence, method, self);
        if (result != ClaimWithStatement.PARAMETER_NOT_SET) {
            return result;
        }
        connection.claim(fence);
        return Invocations.call(raw, method, args);
    }

    private void bind(Method method, Object[] args) throws Throwable {
        int index = (Integer) args[0];
        int[] positions = plan.positionsOf(index);
        if (positions == null) {
            throw new SQLException("parameter index " + index + " is out of range: the statement has "
                    + plan.applicationParameterCount() + " parameters; SQL: " + plan.sql(), "07009");
        }
        // The proxy made args for this call alone (and the claim keeps copies): each position is set in place.
        for (int position : positions) {
            args[0] = position;
            Invocations.call(raw, method, args);
            if (withClaim != null) {
                withClaim.recordSetter(method, args);
            }
        }
    }

    /**
     * Every setter {@code PreparedStatement} declares takes the parameter index first; those {@code CallableStatement}
     * adds all name their parameter, which no rewrite renumbers.
     */
    private static boolean isParameterSetter(Method method, Object[] args) {
        return args != null && args.length >= 2 && method.getDeclaringClass() == PreparedStatement.class
                && method.getName().startsWith("set");
    }
}
