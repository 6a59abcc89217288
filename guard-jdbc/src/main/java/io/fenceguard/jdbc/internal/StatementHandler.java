package io.fenceguard.jdbc.internal;

import io.fenceguard.core.Fence;
import io.fenceguard.jdbc.FencingRefusedException;
import io.fenceguard.jdbc.FencingRefusedException.Reason;
import io.fenceguard.jdbc.Unfenced;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.sql.CallableStatement;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

/**
 * Behind every fenced Statement, PreparedStatement and CallableStatement: maps the application's
 * parameter indexes onto the rewritten SQL, binds the token, checks the lease, claims the gate and
 * turns the database's stale-token error into {@link io.fenceguard.jdbc.StaleTokenException}.
 */
final class StatementHandler implements InvocationHandler {

    private final ConnectionHandler connection;
    private final Statement raw;
    /** The prepared statement's plan; {@code null} for a plain Statement. */
    private final RewritePlan plan;
    private final boolean preparedUnfenced;
    private final boolean remaps;

    StatementHandler(ConnectionHandler connection, Statement raw, RewritePlan plan, boolean preparedUnfenced) {
        this.connection = connection;
        this.raw = raw;
        this.plan = plan;
        this.preparedUnfenced = preparedUnfenced;
        this.remaps = plan != null && plan.kind() == RewritePlan.Kind.REWRITTEN && !preparedUnfenced;
    }

    @Override
    public Object invoke(Object self, Method method, Object[] args) throws Throwable {
        Object wrapperResult = Invocations.wrapperMethod(self, raw, method, args);
        if (wrapperResult != Invocations.NOT_HANDLED) {
            return wrapperResult;
        }
        String name = method.getName();
        boolean withSql = args != null && args.length > 0 && args[0] instanceof String;
        switch (name) {
            case "getConnection":
                return connection.proxy();
            case "execute", "executeQuery", "executeUpdate", "executeLargeUpdate":
                return withSql ? executeText(method, args) : executePrepared(method, args);
            case "addBatch":
                return withSql ? addText(method, args) : addPrepared(method, args);
            case "executeBatch", "executeLargeBatch":
                return executeBatch(method, args);
            case "getParameterMetaData":
                ParameterMetaData driver = (ParameterMetaData) Invocations.call(raw, method, args);
                return remaps ? new RemappedParameterMetaData(driver, plan) : driver;
            default:
                if (remaps && isParameterSetter(method, args)) {
                    bind(method, args);
                    return null;
                }
                return Invocations.call(raw, method, args);
        }
    }

    private Object executeText(Method method, Object[] args) throws Throwable {
        RewritePlan textPlan = checkText((String) args[0]);
        return run(textPlan, method, args, textPlan.isRead());
    }

    private Object addText(Method method, Object[] args) throws Throwable {
        checkText((String) args[0]);
        return Invocations.call(raw, method, args);
    }

    /** SQL given as text cannot take a bound token: a fenced write is only possible unfenced. */
    private RewritePlan checkText(String sql) throws SQLException {
        RewritePlan textPlan = connection.guard().plan(sql);
        if (textPlan.kind() != RewritePlan.Kind.PASS_THROUGH && !Unfenced.isActive()) {
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
            bindToken();
        }
        return Invocations.call(raw, method, args);
    }

    private Object executeBatch(Method method, Object[] args) throws Throwable {
        if (plan != null) {
            checkPrepared();
        }
        RewritePlan batchPlan = plan != null ? plan : RewritePlan.passThrough("(statement batch)", false);
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
        if (plan == null || plan.kind() == RewritePlan.Kind.PASS_THROUGH) {
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
        }
        return fence.get();
    }

    private Object run(RewritePlan runPlan, Method method, Object[] args, boolean read) throws Throwable {
        Optional<Fence> fence = Unfenced.isActive() ? Optional.empty() : connection.guard().fence(runPlan.sql());
        return run(runPlan, method, args, read, fence);
    }

    private Object run(RewritePlan runPlan, Method method, Object[] args, boolean read, Optional<Fence> fence)
            throws Throwable {
        try {
            if (connection.prepareGate(fence, read)) {
                return connection.inOwnTransaction(fence.get(), () -> Invocations.call(raw, method, args));
            }
            return Invocations.call(raw, method, args);
        } catch (SQLException e) {
            throw StaleErrors.translate(e, fence.orElse(null), runPlan.table(), runPlan.sql());
        }
    }

    private void bind(Method method, Object[] args) throws Throwable {
        int index = (Integer) args[0];
        int[] positions = plan.positionsOf(index);
        if (positions == null) {
            throw new SQLException("parameter index " + index + " is out of range: the statement has "
                    + plan.applicationParameterCount() + " parameters; SQL: " + plan.sql(), "07009");
        }
        Object[] positioned = args.clone();
        for (int position : positions) {
            positioned[0] = position;
            Invocations.call(raw, method, positioned);
        }
    }

    private static boolean isParameterSetter(Method method, Object[] args) {
        Class<?> declaring = method.getDeclaringClass();
        return args != null && args.length >= 2 && method.getName().startsWith("set")
                && (declaring == PreparedStatement.class || declaring == CallableStatement.class)
                && method.getParameterTypes()[0] == int.class;
    }
}
