package io.fenceguard.jdbc.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.FencingRefusedException.Reason;
import io.fenceguard.jdbc.SqlDialect;
import io.fenceguard.jdbc.StaleTokenException;
import io.fenceguard.jdbc.internal.proxy.JdbcGuard;
import java.sql.SQLException;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The public seam other drivers' fences use: the JDBC path's plans, refusals and stale errors. */
class SqlFencePlannerTest {

    private final FencingConfig config = FencingConfig.builder().fence("accounts").dialect(SqlDialect.POSTGRESQL).build();
    private final SqlFencePlanner planner = SqlFencePlanner.of(config, SqlDialect.POSTGRESQL);
    private final Fence fence = new Fence(ResourceName.of("account:1"), FencingToken.of(7));

    @Test
    void plans_writes_as_the_jdbc_path_prepares_them() {
        String sql = "UPDATE accounts SET balance = ? WHERE id = ?";
        SqlFencePlan plan = planner.plan(sql);
        assertThat(plan.kind()).isEqualTo(SqlFencePlan.Kind.REWRITTEN);
        // the JDBC path without its catalog check (no database here) prepares the same text
        FencingConfig unchecked = FencingConfig.builder().fence("accounts").dialect(SqlDialect.POSTGRESQL)
                .verifyCatalog(false).build();
        assertThat(plan.rewrittenSql()).isEqualTo(new JdbcGuard(unchecked).preparedSql(sql));
        assertThat(plan.applicationParameterCount()).isEqualTo(2);
        assertThat(plan.positionsOf(1)).containsExactly(1);
        assertThat(plan.positionsOf(2)).containsExactly(plan.parameterCount());
        assertThat(plan.tokenPositions()).hasSize(plan.parameterCount() - 2);
        assertThat(plan.table()).contains("accounts");
        assertThat(planner.plan(sql)).as("cached").extracting(SqlFencePlan::rewrittenSql)
                .isEqualTo(plan.rewrittenSql());

        // the arrays handed out are copies
        plan.tokenPositions()[0] = -1;
        assertThat(plan.tokenPositions()[0]).isPositive();
    }

    @Test
    void reads_pass_and_unfenceable_writes_are_refused_with_the_jdbc_reasons() {
        SqlFencePlan read = planner.plan("SELECT * FROM accounts WHERE id = ?");
        assertThat(read.kind()).isEqualTo(SqlFencePlan.Kind.PASS_THROUGH);
        assertThat(read.isRead()).isTrue();

        SqlFencePlan truncate = planner.plan("TRUNCATE accounts");
        assertThat(truncate.kind()).isEqualTo(SqlFencePlan.Kind.NOT_REWRITABLE);
        assertThat(truncate.refusal(Optional.of(fence), "TRUNCATE accounts").reason()).isEqualTo(Reason.UNSUPPORTED_FORM);
        assertThat(truncate.refusal(Optional.empty(), "TRUNCATE accounts").reason()).isEqualTo(Reason.NO_LEASE);

        SqlFencePlan update = planner.plan("UPDATE accounts SET balance = 0");
        assertThat(update.refusal(Optional.of(fence), "UPDATE accounts SET balance = 0").reason())
                .as("a rewritable write without parameters").isEqualTo(Reason.TOKEN_WOULD_BE_INLINED);
        assertThat(update.refusal(Optional.empty(), "as written").sql()).isEqualTo("as written");
    }

    @Test
    void recognises_the_databases_stale_token_error() {
        SqlFencePlan plan = planner.plan("UPDATE accounts SET balance = ? WHERE id = ?");
        SQLException stale = new SQLException("fenceguard: stale fencing token 7 on table accounts", "40F01");
        Optional<StaleTokenException> translated = plan.stale(stale, fence, "UPDATE accounts SET balance = $1 WHERE id = $2");
        assertThat(translated).hasValueSatisfying(e -> {
            assertThat(e.fence()).isEqualTo(fence);
            assertThat(e.table()).isEqualTo("accounts");
            assertThat(e.sql()).isEqualTo("UPDATE accounts SET balance = $1 WHERE id = $2");
            assertThat(e.getCause()).isSameAs(stale);
        });
        assertThat(SqlFencePlanner.isStale(stale)).isTrue();
        assertThat(plan.stale(new SQLException("deadlock", "40P01"), fence, "x")).isEmpty();
        assertThat(plan.stale(stale, null, "x")).as("no fence, nothing to name").isEmpty();
    }
}
