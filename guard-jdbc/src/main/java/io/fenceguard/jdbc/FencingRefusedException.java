package io.fenceguard.jdbc;

import java.sql.SQLFeatureNotSupportedException;

/**
 * The guard refused to send a statement because it could not be fenced; nothing reached the
 * database. Spring translates it (as an {@link SQLFeatureNotSupportedException}) to an
 * {@code InvalidDataAccessApiUsageException}: it is a programming or configuration error, not a
 * race. The message quotes the SQL and says why.
 */
public class FencingRefusedException extends SQLFeatureNotSupportedException {

    public static final String SQL_STATE = "0AF01";

    /** Why a statement was refused. */
    public enum Reason {
        /** JSqlParser could not parse it and it names a fenced table. */
        UNPARSEABLE,
        /** A write form the rewriter cannot fence (see the message). */
        UNSUPPORTED_FORM,
        /** A plain {@code Statement} write, which would need the token inlined into the SQL. */
        TOKEN_WOULD_BE_INLINED,
        /** A write to a fenced table without a lease in context (and outside {@link Unfenced}). */
        NO_LEASE,
        /** The lease in context is lost or released. */
        LEASE_LOST
    }

    private final Reason reason;
    private final String sql;

    public FencingRefusedException(Reason reason, String why, String sql, Throwable cause) {
        super("fenceguard refused the statement (" + reason + "): " + why + "; SQL: " + sql, SQL_STATE, cause);
        this.reason = reason;
        this.sql = sql;
    }

    public Reason reason() {
        return reason;
    }

    public String sql() {
        return sql;
    }
}
