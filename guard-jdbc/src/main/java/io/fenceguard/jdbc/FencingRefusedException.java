package io.fenceguard.jdbc;

import io.fenceguard.core.Fence;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Optional;

/**
 * The guard refused to send a statement because it could not be fenced; nothing reached the
 * database. Spring translates it (as an {@link SQLFeatureNotSupportedException}) to an
 * {@code InvalidDataAccessApiUsageException}: it is a programming or configuration error, not a
 * race. The message quotes the SQL, says why and names the resource of the lease in context, if any.
 */
public class FencingRefusedException extends SQLFeatureNotSupportedException {

    public static final String SQL_STATE = "0AF01";

    /** Why a statement was refused. */
    public enum Reason {
        /** JSqlParser could not parse it and it names a fenced table. */
        UNPARSEABLE,
        /** A write form the guard cannot rewrite to carry the token (see the message). */
        UNSUPPORTED_FORM,
        /** A plain {@code Statement} write, which would need the token inlined into the SQL. */
        TOKEN_WOULD_BE_INLINED,
        /** A write to a fenced table without a lease in context (and outside {@link Unfenced}). */
        NO_LEASE,
        /** The lease in context is lost or released. */
        LEASE_LOST,
        /** {@code unwrap} to a driver type, which would hand out a write path the guard does not see. */
        RAW_ACCESS,
        /**
         * Procedural code ({@code DO}, {@code CALL}, a call of a routine that may write) whose writes the
         * parser cannot see; run it inside {@link Unfenced} or allow the routine in the configuration.
         */
        PROCEDURAL,
        /** A batch built in one scope ({@link Unfenced} or a lease) and executed in another. */
        BATCH_SCOPE
    }

    private final Reason reason;
    private final String sql;
    private final transient Fence fence;

    public FencingRefusedException(Reason reason, String why, String sql, Throwable cause) {
        this(reason, why, sql, null, cause);
    }

    /** @param fence the fence of the lease in context, or {@code null} when there is none */
    public FencingRefusedException(Reason reason, String why, String sql, Fence fence, Throwable cause) {
        super("fenceguard refused the statement (" + reason + ")"
                + (fence == null ? "" : " for resource '" + fence.resource() + "' with token " + fence.token())
                + ": " + why + "; SQL: " + sql, SQL_STATE, cause);
        this.reason = reason;
        this.sql = sql;
        this.fence = fence;
    }

    public Reason reason() {
        return reason;
    }

    /** The application's SQL (or what was refused, such as a high-water claim). */
    public String sql() {
        return sql;
    }

    /** The resource and token of the lease in context when it was refused; empty without a lease. */
    public Optional<Fence> fence() {
        return Optional.ofNullable(fence);
    }
}
