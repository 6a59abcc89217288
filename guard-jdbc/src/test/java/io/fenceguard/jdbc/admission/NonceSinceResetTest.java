package io.fenceguard.jdbc.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.Admission.Outcome;
import io.fenceguard.admission.IdempotencyStore;
import io.fenceguard.admission.IdempotentAdmissionStore.ClaimedAdmission;
import io.fenceguard.admission.SignedAdmissionStore.Nonce;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.admission.support.Stores;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * After PostgreSQL emptied {@value JdbcHighWaterStore#NONCE_SINCE_TABLE} (crash recovery does; a {@code DELETE} here
 * stands for it), request-signed admissions recover: a signature created after the moment the store found the table
 * empty (plus the margin) is admitted, one created before it stays refused, also when the store joins the handler's
 * transaction and that transaction rolls back after the refusal, and whether the admission carries an idempotency
 * key or not. The transactions are Spring's, on its transaction-aware proxy, as {@code join-handler-transaction} wires
 * them.
 */
class NonceSinceResetTest {

    private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

    @Test
    void joiningTheHandlersTransactionSignaturesAfterTheResetAreAdmitted() throws Exception {
        try (var ds = Stores.postgres(Stores.migratedPostgresSchema(), 4)) {
            JdbcHighWaterStore plain = JdbcHighWaterStore.of(ds);
            JdbcHighWaterStore joined = plain.joiningTransactions(new TransactionAwareDataSourceProxy(ds));
            TransactionTemplate handler = new TransactionTemplate(new DataSourceTransactionManager(ds));
            ResourceName r = ResourceName.of("account:" + RUN);
            Instant beforeReset = Instant.now();
            assertThat(plain.admit(fence(r, 5), nonce("claim", beforeReset)).orElseThrow().outcome())
                    .isEqualTo(Outcome.CLAIMED);

            emptyNonceSince(ds);
            // The refused request's handler transaction rolls back, as the filter's does on a refusal.
            assertThat(inRolledBack(handler, () -> joined.admit(fence(r, 5), nonce("signed-before", beforeReset))))
                    .as("a signature that may predate the loss").isEmpty();
            assertThat(sinceRows(ds)).as("the time the table was found empty is kept after the rollback").isOne();
            assertThat(inRolledBack(handler, () -> joined.admitClaiming(fence(r, 5), nonce("keyed-before", beforeReset),
                    "key-before", "fp")).admission()).as("with a key, a signature that may predate the loss").isNull();

            Instant afterReset = Instant.now().plusSeconds(11);
            assertThat(inRolledBack(handler, () -> joined.admit(fence(r, 5), nonce("signed-after", afterReset)))
                    .orElseThrow().outcome()).isEqualTo(Outcome.CONTINUED);
            ClaimedAdmission keyed = inRolledBack(handler, () -> joined.admitClaiming(fence(r, 5),
                    nonce("keyed-after", afterReset), "key-after", "fp"));
            assertThat(keyed.admission()).as("with a key, a signature created after the loss").isNotNull();
            assertThat(keyed.admission().outcome()).isEqualTo(Outcome.CONTINUED);
            assertThat(keyed.claim().kind()).isEqualTo(IdempotencyStore.Claim.Kind.FIRST);
            List<Optional<Admission>> group = inRolledBack(handler, () -> joined.admitEach(fence(r, 5),
                    List.of(nonce("group-after-1", afterReset), nonce("group-after-2", afterReset))));
            assertThat(group).as("a group of signatures created after the loss").allMatch(Optional::isPresent);

            assertThat(inRolledBack(handler, () -> joined.admit(fence(r, 5), nonce("signed-after", afterReset))))
                    .as("a replay").isEmpty();
            assertThat(inRolledBack(handler, () -> joined.admit(fence(r, 5), nonce("signed-before-2", beforeReset))))
                    .as("still, a signature that may predate the loss").isEmpty();
        }
    }

    /** Outside a transaction, the same: the refusal's statement keeps the table's new row. */
    @Test
    void outsideATransactionSignaturesAfterTheResetAreAdmitted() throws Exception {
        try (var ds = Stores.postgres(Stores.migratedPostgresSchema(), 2)) {
            JdbcHighWaterStore store = JdbcHighWaterStore.of(ds);
            ResourceName r = ResourceName.of("account:" + RUN);
            Instant beforeReset = Instant.now();
            assertThat(store.admit(fence(r, 5), nonce("claim", beforeReset)).orElseThrow().outcome())
                    .isEqualTo(Outcome.CLAIMED);

            emptyNonceSince(ds);
            assertThat(store.admitClaiming(fence(r, 5), nonce("keyed-before", beforeReset), "key-before", "fp")
                    .admission()).as("with a key, a signature that may predate the loss").isNull();
            assertThat(sinceRows(ds)).isOne();
            Instant afterReset = Instant.now().plusSeconds(11);
            assertThat(store.admitClaiming(fence(r, 5), nonce("keyed-after", afterReset), "key-after", "fp")
                    .admission().outcome()).isEqualTo(Outcome.CONTINUED);
            assertThat(store.admitEach(fence(r, 5), List.of(nonce("group-after-1", afterReset),
                    nonce("group-after-2", afterReset)))).allMatch(Optional::isPresent);
            assertThat(store.admit(fence(r, 5), nonce("signed-before", beforeReset))).isEmpty();
        }
    }

    /** {@code call} in a transaction of {@code handler} that then rolls back; its answer. */
    private static <T> T inRolledBack(TransactionTemplate handler, Supplier<T> call) {
        return handler.execute(status -> {
            T answer = call.get();
            status.setRollbackOnly();
            return answer;
        });
    }

    private static void emptyNonceSince(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("DELETE FROM " + JdbcHighWaterStore.NONCE_SINCE_TABLE);
        }
    }

    private static long sinceRows(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
                ResultSet rows = s.executeQuery("SELECT count(*) FROM " + JdbcHighWaterStore.NONCE_SINCE_TABLE)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static Fence fence(ResourceName r, long token) {
        return new Fence(r, FencingToken.of(token));
    }

    private static Nonce nonce(String value, Instant created) {
        return new Nonce("k1:" + RUN + ":" + value, created, created.plusSeconds(30));
    }
}
