package io.fenceguard.reactor.r2dbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.FencingRefusedException.Reason;
import io.fenceguard.reactor.ReactiveLeaseContext;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.transaction.reactive.TransactionalOperator;
import reactor.core.publisher.Mono;

/** Spring's DatabaseClient (named parameters, transactions, exception translation) over the fenced factory. */
class DatabaseClientTest {

    private String table;
    private DatabaseClient db;
    private TransactionalOperator transactions;

    @BeforeEach
    void setUp() {
        table = "r2_dc_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        TestR2dbc.execute("CREATE TABLE " + table + " (id TEXT PRIMARY KEY, balance BIGINT NOT NULL, current_token BIGINT)");
        TestR2dbc.execute("INSERT INTO " + table + " (id, balance) VALUES ('a1', 100)");
        var fenced = FencedConnectionFactory.wrap(TestR2dbc.r2dbc(), FencingConfig.builder().fence(table).build());
        db = DatabaseClient.create(fenced);
        transactions = TransactionalOperator.create(new R2dbcTransactionManager(fenced));
    }

    @AfterEach
    void tearDown() {
        TestR2dbc.execute("DROP TABLE IF EXISTS " + table);
    }

    private Mono<Long> deposit(long token, long amount) {
        Lease lease = Lease.presented(new Fence(ResourceName.of("account:a1"), FencingToken.of(token)), "test");
        return db.sql("UPDATE " + table + " SET balance = balance + :amount WHERE id = :id")
                .bind("amount", amount).bind("id", "a1").fetch().rowsUpdated()
                .as(transactions::transactional)
                .contextWrite(ReactiveLeaseContext.with(lease));
    }

    private long balance() {
        return db.sql("SELECT balance FROM " + table + " WHERE id = 'a1'").map(row -> row.get(0, Long.class)).one()
                .block();
    }

    @Test
    void stale_writes_become_PessimisticLockingFailureException_as_with_jdbc_and_roll_back() {
        assertThat(deposit(20, 5).block()).isEqualTo(1);
        assertThatThrownBy(() -> deposit(19, 1_000).block())
                .isInstanceOf(PessimisticLockingFailureException.class)
                .hasCauseInstanceOf(R2dbcStaleTokenException.class);
        assertThat(balance()).isEqualTo(105);
    }

    @Test
    void refusals_arrive_as_UncategorizedR2dbcException_with_the_refusal_as_cause_and_send_nothing() {
        Throwable refused = org.assertj.core.api.Assertions.catchThrowable(() ->
                db.sql("UPDATE " + table + " SET balance = 0").fetch().rowsUpdated().block());
        R2dbcFencingRefusedException refusal = findCause(refused, R2dbcFencingRefusedException.class);
        assertThat(refusal).as("%s", refused).isNotNull();
        assertThat(refusal.reason()).isEqualTo(Reason.NO_LEASE);
        assertThat(refused).isInstanceOf(org.springframework.r2dbc.UncategorizedR2dbcException.class);
        assertThat(balance()).isEqualTo(100);
    }

    private static <T extends Throwable> T findCause(Throwable error, Class<T> type) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }
}
