package io.fenceguard.reactor.r2dbc;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.FencingRefusedException.Reason;
import io.fenceguard.jdbc.ClaimMode;
import io.fenceguard.jdbc.StaleTokenException;
import io.fenceguard.reactor.ReactiveLeaseContext;
import io.fenceguard.reactor.ReactiveLeases;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.test.support.TestRedisson;
import io.fenceguard.test.support.faults.PausableLeaseProvider;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Result;
import io.r2dbc.spi.Statement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** R2DBC row fencing on the test PostgreSQL: the JDBC module's rules and errors, through r2dbc-postgresql. */
class R2dbcFencingTest {

    private String table;
    private ConnectionFactory fenced;

    @BeforeEach
    void setUp() {
        table = "r2_accounts_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        TestR2dbc.execute("CREATE TABLE " + table + " (id TEXT PRIMARY KEY, balance BIGINT NOT NULL, note TEXT, "
                + "current_token BIGINT)");
        TestR2dbc.execute("INSERT INTO " + table + " (id, balance) VALUES ('a1', 100), ('a2', 100)");
        fenced = FencedConnectionFactory.wrap(TestR2dbc.r2dbc(), FencingConfig.builder().fence(table).build());
    }

    @AfterEach
    void tearDown() {
        TestR2dbc.execute("DROP TABLE IF EXISTS " + table);
    }

    private static Lease presented(String resource, long token) {
        return Lease.presented(new Fence(ResourceName.of(resource), FencingToken.of(token)), "test");
    }

    /** Rows updated by {@code sql} with {@code binds} ($1, $2, ...), under {@code lease} (none when null). */
    private Mono<Long> update(Lease lease, String sql, Object... binds) {
        Mono<Long> run = Mono.usingWhen(fenced.create(), connection -> {
            Statement statement = connection.createStatement(sql);
            for (int i = 0; i < binds.length; i++) {
                statement.bind(i, binds[i]);
            }
            return Flux.from(statement.execute()).flatMap(Result::getRowsUpdated).reduce(0L, Long::sum);
        }, Connection::close);
        return lease == null ? run : run.contextWrite(ReactiveLeaseContext.with(lease));
    }

    /** balance and current_token of {@code id}, read over JDBC. */
    private List<Long> row(String id) throws Exception {
        try (java.sql.Connection connection = TestR2dbc.jdbc().getConnection();
             ResultSet rows = connection.createStatement().executeQuery(
                     "SELECT balance, current_token FROM " + table + " WHERE id = '" + id + "'")) {
            rows.next();
            List<Long> values = new ArrayList<>();
            values.add(rows.getLong(1));
            values.add(rows.wasNull() ? null : rows.getLong(2));
            long token = rows.getLong(2);
            values.set(1, rows.wasNull() ? null : token);
            return values;
        }
    }

    @Test
    void a_current_token_writes_and_stamps_the_row_and_a_stale_one_is_refused_changing_nothing() throws Exception {
        String sql = "UPDATE " + table + " SET balance = balance + $1 WHERE id = $2";
        assertThat(update(presented("account:a1", 50), sql, 5L, "a1").block()).isEqualTo(1);
        assertThat(row("a1")).containsExactly(105L, 50L);

        assertThat(update(presented("account:a1", 50), sql, 5L, "a1").block()).as("the same token continues").isEqualTo(1);
        assertThat(update(presented("account:a1", 51), sql, 5L, "a1").block()).as("a newer one takes over").isEqualTo(1);
        assertThat(row("a1")).containsExactly(115L, 51L);

        assertThatThrownBy(() -> update(presented("account:a1", 49), sql, 1000L, "a1").block())
                .isInstanceOfSatisfying(R2dbcStaleTokenException.class, e -> {
                    assertThat(e.getSqlState()).isEqualTo("40F01");
                    assertThat(e).isInstanceOf(io.r2dbc.spi.R2dbcRollbackException.class)
                            .hasCauseInstanceOf(StaleTokenException.class);
                    assertThat(e.token()).isEqualTo(FencingToken.of(49));
                    assertThat(e.resource()).isEqualTo(ResourceName.of("account:a1"));
                    assertThat(e.table()).isEqualTo(table);
                    assertThat(e.staleToken().sql()).isEqualTo(sql);
                    assertThat(e.getMessage()).contains("stale fencing token 49", "account:a1", table);
                });
        assertThat(row("a1")).as("nothing changed").containsExactly(115L, 51L);
        assertThat(row("a2")).containsExactly(100L, null);
    }

    @Test
    void a_multi_row_stale_write_is_all_or_nothing() throws Exception {
        update(presented("account:all", 10), "UPDATE " + table + " SET balance = 1 WHERE id = $1", "a1").block();
        assertThatThrownBy(() -> update(presented("account:all", 9), "UPDATE " + table + " SET balance = 2", new Object[0])
                .block()).isInstanceOf(R2dbcStaleTokenException.class);
        assertThat(row("a1")).containsExactly(1L, 10L);
        assertThat(row("a2")).as("the admitted row of the same statement is not written either").containsExactly(100L, null);
    }

    @Test
    void insert_stamps_and_delete_is_fenced() throws Exception {
        assertThat(update(presented("account:a3", 7), "INSERT INTO " + table + " (id, balance) VALUES ($1, $2)", "a3", 1L)
                .block()).isEqualTo(1);
        assertThat(row("a3")).containsExactly(1L, 7L);

        assertThatThrownBy(() -> update(presented("account:a3", 6), "DELETE FROM " + table + " WHERE id = $1", "a3").block())
                .isInstanceOf(R2dbcStaleTokenException.class);
        assertThat(row("a3")).containsExactly(1L, 7L);
        assertThat(update(presented("account:a3", 7), "DELETE FROM " + table + " WHERE id = $1", "a3").block()).isEqualTo(1);
    }

    @Test
    void markers_reused_named_and_inside_literals_are_mapped() throws Exception {
        String sql = "UPDATE " + table + " SET balance = balance + $1, note = 'costs $1 or ?' || $2 "
                + "WHERE id = $3 AND balance + $1 > 0";
        Mono<Long> run = Mono.usingWhen(fenced.create(), connection -> {
            Statement statement = connection.createStatement(sql).bind("$1", 7L).bind(1, "!").bind("$3", "a2");
            return Flux.from(statement.execute()).flatMap(Result::getRowsUpdated).reduce(0L, Long::sum);
        }, Connection::close).contextWrite(ReactiveLeaseContext.with(presented("account:a2", 3)));
        assertThat(run.block()).isEqualTo(1);
        assertThat(row("a2")).containsExactly(107L, 3L);
        try (java.sql.Connection connection = TestR2dbc.jdbc().getConnection();
             ResultSet rows = connection.createStatement().executeQuery("SELECT note FROM " + table + " WHERE id = 'a2'")) {
            rows.next();
            assertThat(rows.getString(1)).isEqualTo("costs $1 or ?!");
        }
    }

    @Test
    void a_batch_of_binding_sets_carries_the_token_in_each() throws Exception {
        Mono<Long> run = Mono.usingWhen(fenced.create(), connection -> {
            Statement statement = connection.createStatement("UPDATE " + table + " SET balance = $1 WHERE id = $2")
                    .bind(0, 1L).bind(1, "a1").add().bind(0, 2L).bind(1, "a2");
            return Flux.from(statement.execute()).flatMap(Result::getRowsUpdated).reduce(0L, Long::sum);
        }, Connection::close).contextWrite(ReactiveLeaseContext.with(presented("account:batch", 12)));
        assertThat(run.block()).isEqualTo(2);
        assertThat(row("a1")).containsExactly(1L, 12L);
        assertThat(row("a2")).containsExactly(2L, 12L);
    }

    @Test
    void writes_that_cannot_be_fenced_are_refused_before_anything_is_sent() throws Exception {
        assertThatThrownBy(() -> update(null, "UPDATE " + table + " SET balance = 0 WHERE id = $1", "a1").block())
                .isInstanceOfSatisfying(R2dbcFencingRefusedException.class, e -> assertThat(e.reason()).isEqualTo(Reason.NO_LEASE));
        assertThatThrownBy(() -> update(presented("account:a1", 5),
                "UPDATE " + table + " SET current_token = $1 WHERE id = $2", 99L, "a1").block())
                .isInstanceOfSatisfying(R2dbcFencingRefusedException.class,
                        e -> assertThat(e.reason()).isEqualTo(Reason.UNSUPPORTED_FORM));
        assertThatThrownBy(() -> update(presented("account:a1", 5), "TRUNCATE " + table).block())
                .isInstanceOf(R2dbcFencingRefusedException.class);

        Mono<Long> batch = Mono.usingWhen(fenced.create(), connection -> Flux.from(connection.createBatch()
                        .add("SELECT 1").add("UPDATE " + table + " SET balance = 0").execute())
                .flatMap(Result::getRowsUpdated).reduce(0L, Long::sum), Connection::close)
                .contextWrite(ReactiveLeaseContext.with(presented("account:a1", 5)));
        assertThatThrownBy(batch::block).isInstanceOfSatisfying(R2dbcFencingRefusedException.class,
                e -> assertThat(e.reason()).isEqualTo(Reason.TOKEN_WOULD_BE_INLINED));

        assertThat(row("a1")).containsExactly(100L, null);
        assertThat(update(null, "SELECT * FROM " + table).block()).as("reads pass without a lease").isNotNull();
        assertThatThrownBy(() -> FencedConnectionFactory.wrap(TestR2dbc.r2dbc(),
                FencingConfig.builder().fence(table).claimMode(ClaimMode.FIRST_STATEMENT).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("high-water");
    }

    @Test
    void held_leases_from_reactive_chains_fence_and_a_lost_one_is_refused_at_once() throws Exception {
        PausableLeaseProvider provider = PausableLeaseProvider.wrap(RedisLeaseProvider.of(RedissonScriptClient.of(TestRedisson.shared())));
        LeaseManager manager = LeaseManager.of(provider, LeaseConfig.builder().leaseTime(Duration.ofSeconds(1))
                .renewInterval(Duration.ofMillis(200)).build());
        try {
            ReactiveLeases leases = ReactiveLeases.of(manager);
            String resource = "account:" + table;
            String sql = "UPDATE " + table + " SET balance = balance - $1 WHERE id = $2";
            Long token = leases.withLease(resource, Duration.ofSeconds(5),
                    lease -> update(null, sql, 10L, "a1").thenReturn(lease.token().value())).block(Duration.ofSeconds(10));
            assertThat(row("a1")).containsExactly(90L, token);

            Lease lost = manager.acquire(resource, Duration.ofSeconds(5));
            provider.pauseRenewals(lost.resource(), Duration.ofSeconds(30));
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (lost.isValid() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThatThrownBy(() -> update(lost, sql, 10L, "a1").block())
                    .isInstanceOfSatisfying(R2dbcFencingRefusedException.class,
                            e -> assertThat(e.reason()).isEqualTo(Reason.LEASE_LOST));
            assertThatThrownBy(() -> update(lost, "SELECT 1").block()).isInstanceOf(R2dbcFencingRefusedException.class);
            assertThat(row("a1")).containsExactly(90L, token);
        } finally {
            manager.close();
        }
    }
}
