package io.fenceguard.reactor.r2dbc;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.Lease;
import io.fenceguard.jdbc.FencingRefusedException;
import io.fenceguard.jdbc.FencingRefusedException.Reason;
import io.fenceguard.jdbc.StaleTokenException;
import io.fenceguard.jdbc.sql.SqlFencePlan;
import io.fenceguard.jdbc.sql.SqlFencePlanner;
import io.fenceguard.reactor.ReactiveLeaseContext;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.R2dbcException;
import io.r2dbc.spi.Result;
import io.r2dbc.spi.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import reactor.core.publisher.Flux;

/**
 * One statement on a fenced connection. A write on a fenced table is prepared with its rewrite; the
 * application's bindings are kept and applied, remapped and with the token, when the result is
 * subscribed, from the subscriber's context. Anything else is the driver's statement, checked only for
 * a lost lease when run.
 */
final class FencedStatement implements Statement {

    private final Statement raw;
    private final SqlFencePlan plan;
    private final BindMarkers.Translation translation;
    /** Rewritten writes only: the binding sets, by the application's 0-based index. */
    private final List<Map<Integer, Object>> bindings = new ArrayList<>();
    private final FencingRefusedException refusedAsWritten;
    /** The application's SQL, with its own markers. */
    private final String sql;

    private FencedStatement(String sql, Statement raw, SqlFencePlan plan, BindMarkers.Translation translation,
            FencingRefusedException refusedAsWritten) {
        this.sql = sql;
        this.raw = raw;
        this.plan = plan;
        this.translation = translation;
        this.refusedAsWritten = refusedAsWritten;
        bindings.add(new HashMap<>());
    }

    static Statement create(Connection connection, SqlFencePlanner planner, String sql) {
        BindMarkers.Translation translation = BindMarkers.toJdbc(sql);
        if (translation.bareQuestionMark()) {
            // A ? operator would be read as a marker: fenced writes with it are refused, the rest passes as written.
            SqlFencePlan plan = planner.plan(sql);
            if (plan.kind() == SqlFencePlan.Kind.PASS_THROUGH) {
                return new FencedStatement(sql, connection.createStatement(sql), plan, null, null);
            }
            return new FencedStatement(sql, null, plan, null, new FencingRefusedException(Reason.UNSUPPORTED_FORM,
                    "a ? outside literals (an operator) in a write to a fenced table cannot be fenced on R2DBC", sql, null));
        }
        SqlFencePlan plan = planner.plan(translation.jdbcSql());
        return switch (plan.kind()) {
            case PASS_THROUGH -> new FencedStatement(sql, connection.createStatement(sql), plan, null, null);
            case NOT_REWRITABLE -> new FencedStatement(sql, null, plan, translation, null);
            case REWRITTEN -> new FencedStatement(sql, connection.createStatement(
                    BindMarkers.toDollar(plan.rewrittenSql(), plan.parameterCount())), plan, translation, null);
        };
    }

    private boolean rewritten() {
        return plan.kind() == SqlFencePlan.Kind.REWRITTEN && translation != null;
    }

    @Override
    public Statement add() {
        if (rewritten()) {
            bindings.add(new HashMap<>());
        } else if (raw != null) {
            raw.add();
        }
        return this;
    }

    @Override
    public Statement bind(int index, Object value) {
        if (value == null) {
            throw new IllegalArgumentException("value must not be null; use bindNull");
        }
        return put(index, value);
    }

    @Override
    public Statement bind(String name, Object value) {
        if (value == null) {
            throw new IllegalArgumentException("value must not be null; use bindNull");
        }
        if (rewritten()) {
            return put(indexOf(name), value);
        }
        if (raw != null) {
            raw.bind(name, value);
        }
        return this;
    }

    @Override
    public Statement bindNull(int index, Class<?> type) {
        return put(index, new NullValue(type));
    }

    @Override
    public Statement bindNull(String name, Class<?> type) {
        if (rewritten()) {
            return put(indexOf(name), new NullValue(type));
        }
        if (raw != null) {
            raw.bindNull(name, type);
        }
        return this;
    }

    private Statement put(int index, Object value) {
        if (rewritten()) {
            if (index < 0 || index >= translation.highestNumber()) {
                throw new IndexOutOfBoundsException("bind index " + index + " is out of range: the statement has $1 to $"
                        + translation.highestNumber() + "; SQL: " + sql);
            }
            bindings.get(bindings.size() - 1).put(index, value);
        } else if (raw != null) {
            if (value instanceof NullValue nullValue) {
                raw.bindNull(index, nullValue.type());
            } else {
                raw.bind(index, value);
            }
        }
        return this;
    }

    /** PostgreSQL's names for its markers: {@code $1} is index 0. */
    private int indexOf(String name) {
        if (name != null && name.matches("\\$[1-9][0-9]{0,8}")) {
            return Integer.parseInt(name.substring(1)) - 1;
        }
        throw new IllegalArgumentException("bind name '" + name + "' is not a marker of the statement ($1, $2, ...); SQL: "
                + sql);
    }

    @Override
    public Statement returnGeneratedValues(String... columns) {
        if (raw != null) {
            raw.returnGeneratedValues(columns);
        }
        return this;
    }

    @Override
    public Statement fetchSize(int rows) {
        if (raw != null) {
            raw.fetchSize(rows);
        }
        return this;
    }

    @Override
    public Flux<Result> execute() {
        return Flux.deferContextual(context -> {
            if (refusedAsWritten != null) {
                return Flux.error(new R2dbcFencingRefusedException(refusedAsWritten));
            }
            Optional<Lease> lease = ReactiveLeaseContext.current(context);
            Optional<Fence> fence;
            try {
                fence = validFence(lease);
            } catch (FencingRefusedException e) {
                return Flux.error(new R2dbcFencingRefusedException(e));
            }
            return switch (plan.kind()) {
                case PASS_THROUGH -> Flux.<Result>from(raw.execute());
                case NOT_REWRITABLE -> Flux.error(new R2dbcFencingRefusedException(plan.refusal(fence, sql)));
                case REWRITTEN -> fence.isEmpty()
                        ? Flux.<Result>error(new R2dbcFencingRefusedException(plan.refusal(Optional.empty(), sql)))
                        : runRewritten(fence.get());
            };
        });
    }

    private Optional<Fence> validFence(Optional<Lease> lease) throws FencingRefusedException {
        if (lease.isEmpty()) {
            return Optional.empty();
        }
        try {
            lease.get().ensureValid();
        } catch (FenceguardException e) {
            throw new FencingRefusedException(Reason.LEASE_LOST, e.getMessage(), sql, lease.get().fence(), e);
        }
        return Optional.of(lease.get().fence());
    }

    private Flux<Result> runRewritten(Fence fence) {
        long token = fence.token().value();
        int[] numbers = translation.markerNumbers();
        for (int set = 0; set < bindings.size(); set++) {
            if (set > 0) {
                raw.add();
            }
            Map<Integer, Object> values = bindings.get(set);
            for (int marker = 1; marker < numbers.length; marker++) {
                Object value = values.get(numbers[marker] - 1);
                if (value == null) {
                    continue;      // left unbound: the driver reports it
                }
                for (int position : plan.positionsOf(marker)) {
                    if (value instanceof NullValue nullValue) {
                        raw.bindNull(position - 1, nullValue.type());
                    } else {
                        raw.bind(position - 1, value);
                    }
                }
            }
            for (int position : plan.tokenPositions()) {
                raw.bind(position - 1, token);
            }
        }
        // The database's error arrives through the results (rows updated, rows), not through execute().
        java.util.function.Function<Throwable, Throwable> translate = error -> translate(error, fence);
        return Flux.<Result>from(raw.execute()).onErrorMap(translate)
                .map(result -> (Result) new TranslatingResult(result, translate));
    }

    private Throwable translate(Throwable error, Fence fence) {
        if (error instanceof R2dbcStaleTokenException || !isStale(error)) {
            return error;
        }
        return plan.stale(error, fence, sql).<Throwable>map(R2dbcStaleTokenException::new).orElse(error);
    }

    /** The database's stale-token error, by SQLSTATE or by the message of the guard's function. */
    private static boolean isStale(Throwable error) {
        if (error instanceof R2dbcException r2dbc && StaleTokenException.SQL_STATE.equals(r2dbc.getSqlState())) {
            return true;
        }
        return SqlFencePlanner.isStale(error);
    }

    private record NullValue(Class<?> type) {
    }

    @Override
    public String toString() {
        return "FencedStatement[" + plan + "]";
    }
}
