package io.fenceguard.spring.boot.autoconfigure.dao;

import io.fenceguard.spring.dao.FencingRefusals;
import java.sql.SQLException;
import org.jooq.ExecuteContext;
import org.springframework.boot.jooq.autoconfigure.ExceptionTranslatorExecuteListener;
import org.springframework.dao.DataAccessException;

/**
 * jOOQ's exception translation with fenceguard's refusals first: a statement whose SQLException (or a cause of
 * it) is a refusal ends in fenceguard's {@code DataAccessException}; every other one is translated by the
 * listener that was there.
 */
final class FencingJooqExceptionTranslator implements ExceptionTranslatorExecuteListener {

    private final ExceptionTranslatorExecuteListener delegate;

    FencingJooqExceptionTranslator(ExceptionTranslatorExecuteListener delegate) {
        this.delegate = delegate;
    }

    @Override
    public void exception(ExecuteContext context) {
        SQLException exception = context.sqlException();
        DataAccessException fencing = exception == null ? null
                : FencingRefusals.translate("jOOQ", context.sql(), exception);
        if (fencing != null) {
            context.exception(fencing);
        } else {
            delegate.exception(context);
        }
    }
}
