package io.fenceguard.jdbc.internal.proxy;

import io.fenceguard.core.Fence;
import io.fenceguard.jdbc.internal.sql.StaleErrors;
import java.lang.reflect.Method;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/**
 * The high-water claim sent with a prepared statement's execution, in one round trip (PostgreSQL's driver sends
 * the statements of one multi-statement text together and answers them in order): the parameters as set
 * on the driver statement are recorded and set again, behind the claim's two, on one statement of the claim
 * and the SQL, prepared at the first claim and kept while the fenced statement lives. Confined to the
 * statement's user, as the statement is.
 */
final class ClaimWithStatement {

    /** {@link #execute}: a parameter was not set; the driver refused before sending anything. */
    static final Object PARAMETER_NOT_SET = new Object();
    /** Parameters the high-water claim takes in front of the statement: resource and token. */
    private static final int CLAIM_PARAMETERS = 2;
    private static final Method SET_LONG;

    static {
        try {
            SET_LONG = PreparedStatement.class.getMethod("setLong", int.class, long.class);
        } catch (NoSuchMethodException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ConnectionHandler connection;
    private final Statement raw;
    /** The SQL the driver statement was prepared with. */
    private final String sql;
    /** The parameters as set on the driver statement, by position there. */
    private final Map<Integer, Setter> parameters = new HashMap<>();
    /** The claim's SQL, fixed when {@link #both} is prepared. */
    private String claimSql;
    private PreparedStatement both;
    /** Whether the last execution ran on {@link #both}: its results are the fenced statement's. */
    private boolean holdsResults;

    /** One parameter setter call as the driver statement took it ({@code args[0]}: the position). */
    private record Setter(Method method, Object[] args) {
    }

    ClaimWithStatement(ConnectionHandler connection, Statement raw, String sql) {
        this.connection = connection;
        this.raw = raw;
        this.sql = sql;
    }

    /** A parameter the driver statement took: {@code args[0]} is its position there. */
    void recordSetter(Method method, Object[] args) {
        parameters.put((Integer) args[0], new Setter(method, args.clone()));
    }

    void recordToken(int position, long token) {
        recordSetter(SET_LONG, new Object[] {position, token});
    }

    void clearParameters() {
        parameters.clear();
    }

    /** An execution is about to run (with the claim or without): results are the driver statement's until then. */
    void executionStarts() {
        holdsResults = false;
    }

    /** The statement the fenced statement's result methods answer from now. */
    Statement resultSource() {
        return holdsResults ? both : raw;
    }

    /**
     * Whether this execution can take the claim in front of it: executed as prepared ({@code args} empty, not
     * a batch), with parameters that can be set a second time (no streams, no LOBs).
     */
    boolean canRun(Object[] args) {
        if (args != null && args.length > 0) {
            return false;
        }
        for (Setter set : parameters.values()) {
            for (int i = 1; i < set.args().length; i++) {
                Object value = set.args()[i];
                if (value instanceof java.io.InputStream || value instanceof java.io.Reader
                        || value instanceof java.sql.Blob || value instanceof java.sql.Clob) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Runs the claim and the statement as one, with the statement's parameters, query timeout, max rows and
     * fetch size; the claim's result is skipped, so {@code method} answers with the statement's first result,
     * and {@link #resultSource()} is this statement until the next execution. A failing claim fails the whole
     * (nothing of the statement runs), named as the high-water claim. {@link #PARAMETER_NOT_SET} when a parameter
     * was not set.
     *
     * @param fenced the fenced statement, which result sets of this one name as theirs
     */
    Object execute(Fence fence, Method method, Statement fenced) throws SQLException {
        if (both == null) {
            claimSql = connection.claimSql();
            both = connection.raw().prepareStatement(claimSql + ";\n" + sql);
            connection.alias(both, fenced);
        } else {
            both.clearParameters();
        }
        holdsResults = true;
        try {
            both.setQueryTimeout(raw.getQueryTimeout());
            both.setMaxRows(raw.getMaxRows());
            both.setFetchSize(raw.getFetchSize());
            both.setString(1, fence.resource().value());
            both.setLong(2, fence.token().value());
            for (Map.Entry<Integer, Setter> set : parameters.entrySet()) {
                Object[] shifted = set.getValue().args().clone();
                shifted[0] = set.getKey() + CLAIM_PARAMETERS;
                try {
                    Invocations.call(both, set.getValue().method(), shifted);
                } catch (SQLException | RuntimeException e) {
                    throw e;
                } catch (Throwable e) {
                    throw new SQLException("could not set parameter " + set.getKey() + " behind the high-water claim", e);
                }
            }
            both.execute();
            both.getMoreResults();   // past the claim's update count, to the statement's first result
        } catch (SQLException e) {
            holdsResults = false;
            if ("22023".equals(e.getSQLState()) && String.valueOf(e.getMessage()).startsWith("No value specified")) {
                return PARAMETER_NOT_SET;
            }
            if (StaleErrors.isStaleOn(e, connection.highWaterTable())) {
                throw StaleErrors.translate(e, fence, connection.highWaterTable(), "high-water claim: " + claimSql);
            }
            throw e;
        }
        return switch (method.getName()) {
            case "executeQuery" -> {
                ResultSet rows = both.getResultSet();
                if (rows == null) {
                    throw new SQLException("No results were returned by the query.", "02000");
                }
                yield rows;
            }
            case "executeUpdate", "executeLargeUpdate" -> {
                if (both.getResultSet() != null) {
                    throw new SQLException("A result was returned when none was expected.", "0100E");
                }
                yield method.getName().equals("executeUpdate") ? (Object) both.getUpdateCount()
                        : (Object) both.getLargeUpdateCount();
            }
            default -> both.getResultSet() != null;
        };
    }

    /** With the fenced statement. */
    void close() {
        PreparedStatement last = both;
        holdsResults = false;
        if (last == null) {
            return;
        }
        both = null;
        connection.forget(last);
        try {
            last.close();
        } catch (SQLException ignored) {
            // closing a finished statement; nothing to keep
        }
    }
}
