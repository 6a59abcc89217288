package io.fenceguard.reactor.r2dbc;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.Lease;
import io.fenceguard.jdbc.FencingRefusedException;
import io.fenceguard.jdbc.FencingRefusedException.Reason;
import io.fenceguard.jdbc.sql.SqlFencePlan;
import io.fenceguard.jdbc.sql.SqlFencePlanner;
import io.fenceguard.reactor.ReactiveLeaseContext;
import io.r2dbc.spi.Batch;
import io.r2dbc.spi.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import reactor.core.publisher.Flux;

/**
 * A batch of SQL strings: they take no bind parameters, so a write on a fenced table cannot carry a
 * token and is refused ({@code TOKEN_WOULD_BE_INLINED}, {@code NO_LEASE} or why it cannot be rewritten),
 * as a plain JDBC {@code Statement} write is; the whole batch is then not sent.
 */
final class FencedBatch implements Batch {

    private final Batch raw;
    private final SqlFencePlanner planner;
    private final List<SqlFencePlan> fenced = new ArrayList<>();
    private final List<String> sql = new ArrayList<>();

    FencedBatch(Batch raw, SqlFencePlanner planner) {
        this.raw = raw;
        this.planner = planner;
    }

    @Override
    public Batch add(String statement) {
        SqlFencePlan plan = planner.plan(statement);
        if (plan.kind() != SqlFencePlan.Kind.PASS_THROUGH) {
            fenced.add(plan);
        }
        sql.add(statement);
        raw.add(statement);
        return this;
    }

    @Override
    public Flux<Result> execute() {
        return Flux.deferContextual(context -> {
            Optional<Lease> lease = ReactiveLeaseContext.current(context);
            Optional<Fence> fence = lease.map(Lease::fence);
            if (lease.isPresent()) {
                try {
                    lease.get().ensureValid();
                } catch (FenceguardException e) {
                    return Flux.error(new R2dbcFencingRefusedException(new FencingRefusedException(Reason.LEASE_LOST,
                            e.getMessage(), String.join("; ", sql), fence.get(), e)));
                }
            }
            if (!fenced.isEmpty()) {
                return Flux.error(new R2dbcFencingRefusedException(fenced.get(0).refusal(fence, String.join("; ", sql))));
            }
            return Flux.<Result>from(raw.execute());
        });
    }
}
