package io.fenceguard.reactor.webflux.r2dbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.Admission.Outcome;
import io.fenceguard.admission.IdempotencyStore;
import io.fenceguard.admission.IdempotentAdmissionStore.ClaimedAdmission;
import io.fenceguard.admission.NonBlockingAdmissionStore;
import io.fenceguard.admission.NonBlockingIdempotencyStore;
import io.fenceguard.admission.SignedAdmissionStore.Nonce;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.admission.JdbcHighWaterStore;
import io.fenceguard.reactor.r2dbc.TestR2dbc;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The R2DBC store beside JDBC instances that commit nonces without waiting for their WAL flush: after PostgreSQL
 * emptied {@value JdbcHighWaterStore#NONCE_SINCE_TABLE} (crash recovery does; a {@code DELETE} here stands for it), a
 * signature created before the moment the table was found empty is refused by the R2DBC store too, with or without
 * an idempotency key, blocking or not, and one created after it is admitted; nonces are shared with a JDBC store on
 * the same tables. In a schema of its own, so that emptying the table touches no other test's.
 */
class R2dbcNonceSinceTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

    private final String schema = "r2dbc_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final PGSimpleDataSource jdbc = TestR2dbc.migratedSchema(schema);
    private final R2dbcHighWaterStore store = R2dbcHighWaterStore.of(TestR2dbc.r2dbc(),
            schema + "." + JdbcHighWaterStore.DEFAULT_TABLE);
    private final NonBlockingAdmissionStore nonBlocking = store.nonBlocking().orElseThrow();
    private final NonBlockingIdempotencyStore keys = nonBlocking.idempotentAdmissions().orElseThrow();

    @AfterEach
    void dropSchema() {
        TestR2dbc.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }

    @Test
    void signaturesThatMayPredateALossOfUnflushedNoncesAreRefused() throws Exception {
        ResourceName r = ResourceName.of("account:" + RUN);
        Instant beforeReset = Instant.now();
        assertThat(answer(nonBlocking.admit(fence(r, 5), nonce("claim", beforeReset))).orElseThrow().outcome())
                .isEqualTo(Outcome.CLAIMED);

        emptyNonceSince();
        assertThat(answer(nonBlocking.admit(fence(r, 5), nonce("signed-before", beforeReset))))
                .as("a signature that may predate the loss").isEmpty();
        assertThat(sinceRows()).as("the time the table was found empty").isOne();
        assertThat(store.admit(fence(r, 5), nonce("blocking-before", beforeReset)))
                .as("blocking, a signature that may predate the loss").isEmpty();
        assertThat(answer(keys.admitClaiming(fence(r, 5), nonce("keyed-before", beforeReset), "key-before", "fp"))
                .admission()).as("with a key, a signature that may predate the loss").isNull();

        Instant afterReset = Instant.now().plusSeconds(11);
        Optional<Admission> after = answer(nonBlocking.admit(fence(r, 5), nonce("signed-after", afterReset)));
        assertThat(after.orElseThrow().outcome()).isEqualTo(Outcome.CONTINUED);
        ClaimedAdmission keyed = answer(keys.admitClaiming(fence(r, 5), nonce("keyed-after", afterReset), "key-after",
                "fp"));
        assertThat(keyed.admission().outcome()).isEqualTo(Outcome.CONTINUED);
        assertThat(keyed.claim().kind()).isEqualTo(IdempotencyStore.Claim.Kind.FIRST);
        assertThat(answer(nonBlocking.admit(fence(r, 5), nonce("signed-after", afterReset)))).as("a replay").isEmpty();
    }

    @Test
    void noncesAreSharedWithTheJdbcStore() throws Exception {
        JdbcHighWaterStore jdbcStore = JdbcHighWaterStore.of(jdbc, schema + "." + JdbcHighWaterStore.DEFAULT_TABLE);
        ResourceName r = ResourceName.of("account:" + RUN);
        Instant now = Instant.now();
        assertThat(jdbcStore.admit(fence(r, 7), nonce("by-jdbc", now))).isPresent();
        assertThat(answer(nonBlocking.admit(fence(r, 7), nonce("by-jdbc", now)))).as("replayed to R2DBC").isEmpty();
        assertThat(answer(nonBlocking.admit(fence(r, 7), nonce("by-r2dbc", now)))).isPresent();
        assertThat(jdbcStore.admit(fence(r, 7), nonce("by-r2dbc", now))).as("replayed to JDBC").isEmpty();
    }

    private static <T> T answer(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }


    private void emptyNonceSince() throws SQLException {
        try (Connection c = jdbc.getConnection(); Statement s = c.createStatement()) {
            s.execute("DELETE FROM " + schema + "." + JdbcHighWaterStore.NONCE_SINCE_TABLE);
        }
    }

    private long sinceRows() throws SQLException {
        try (Connection c = jdbc.getConnection(); Statement s = c.createStatement();
                ResultSet rows = s.executeQuery("SELECT count(*) FROM " + schema + "." + JdbcHighWaterStore.NONCE_SINCE_TABLE)) {
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
