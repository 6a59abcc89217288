package io.fenceguard.spring.dao;

import io.fenceguard.jdbc.FencingRefusedException;
import io.fenceguard.jdbc.StaleTokenException;
import java.sql.SQLException;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.support.PersistenceExceptionTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/**
 * Spring's translation of fenceguard's refusals, the same on every data access path: a fenceguard exception (or
 * the SQLSTATE the guard's database function and triggers raise) anywhere in the cause chain becomes
 *
 * <ul>
 *   <li>{@link StaleTokenFailureException} (a {@code ConcurrencyFailureException}) for a stale token
 *       ({@link StaleTokenException}, SQLSTATE {@value StaleTokenException#SQL_STATE});</li>
 *   <li>{@link LeaseLostFailureException} (a {@code ConcurrencyFailureException}) for a statement refused
 *       because the lease in context was lost;</li>
 *   <li>{@link FencingRefusedUsageException} (an {@code InvalidDataAccessApiUsageException}) for every other
 *       refusal ({@link FencingRefusedException}, SQLSTATE {@value FencingRefusedException#SQL_STATE}, and
 *       trigger mode's {@value io.fenceguard.db.FenceguardTriggers#NO_TOKEN_STATE}).</li>
 * </ul>
 *
 * Every other exception goes to the translator that was there before (the delegate), or, without one, stays
 * untranslated ({@code null}) so that the caller's own translation applies, as Hibernate's JPA dialect does.
 * The chain is searched because each path wraps the driver's exception its own way (Hibernate's
 * {@code JDBCException}, R2DBC's exceptions, MyBatis' {@code PersistenceException}).
 */
public final class FencingExceptionTranslator implements SQLExceptionTranslator, PersistenceExceptionTranslator {

    private final SQLExceptionTranslator delegate;

    private FencingExceptionTranslator(SQLExceptionTranslator delegate) {
        this.delegate = delegate;
    }

    /**
     * A translator of fenceguard's refusals in front of {@code delegate} (which may be {@code null}: nothing
     * else is translated then); a fencing translator given as delegate is returned as it is, so installing
     * twice yields one.
     */
    public static FencingExceptionTranslator around(SQLExceptionTranslator delegate) {
        return delegate instanceof FencingExceptionTranslator fencing ? fencing
                : new FencingExceptionTranslator(delegate);
    }

    /** The translator of every exception that is not fenceguard's; {@code null} when there is none. */
    public SQLExceptionTranslator delegate() {
        return delegate;
    }

    @Override
    public DataAccessException translate(String task, String sql, SQLException ex) {
        DataAccessException fencing = FencingRefusals.translate(task, sql, ex);
        if (fencing != null) {
            return fencing;
        }
        return delegate == null ? null : delegate.translate(task, sql, ex);
    }

    /** A runtime exception (a path's own wrapper, or an already translated one) with a refusal in its chain. */
    @Override
    public DataAccessException translateExceptionIfPossible(RuntimeException ex) {
        if (ex instanceof StaleTokenFailureException || ex instanceof LeaseLostFailureException
                || ex instanceof FencingRefusedUsageException) {
            return (DataAccessException) ex;
        }
        return FencingRefusals.translate(null, null, ex);
    }

}
