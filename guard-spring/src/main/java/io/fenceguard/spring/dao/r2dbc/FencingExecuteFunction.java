package io.fenceguard.spring.dao.r2dbc;

import io.fenceguard.spring.dao.FencingRefusals;
import io.r2dbc.spi.Result;
import io.r2dbc.spi.Statement;
import java.util.function.Function;
import org.springframework.dao.DataAccessException;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.r2dbc.core.ExecuteFunction;
import reactor.core.publisher.Flux;

/**
 * The {@link ExecuteFunction} of a {@link DatabaseClient} that reports fenceguard's refusals in its
 * {@code DataAccessException}s ({@link FencingRefusals}), as JDBC and JPA do. Spring's own R2DBC
 * translation is a fixed mapping by R2DBC exception class, with no hook, and reports a refused statement as an
 * {@code UncategorizedR2dbcException}; an error that is already a {@code DataAccessException} passes it
 * untouched. Runs {@code Statement.execute()}, as Spring's default does:
 *
 * <pre>{@code DatabaseClient.builder().connectionFactory(factory).executeFunction(new FencingExecuteFunction()).build()}</pre>
 */
public final class FencingExecuteFunction implements ExecuteFunction {

    private static final Function<Throwable, Throwable> TRANSLATE = error -> {
        DataAccessException fencing = FencingRefusals.translate("R2DBC", null, error);
        return fencing == null ? error : fencing;
    };

    @Override
    public Flux<? extends Result> execute(Statement statement) {
        // The database's refusal arrives through the results (rows updated, rows), the guard's through execute().
        return Flux.from(statement.execute()).onErrorMap(TRANSLATE)
                .map(result -> new FencingTranslatedResult(result, TRANSLATE));
    }
}
