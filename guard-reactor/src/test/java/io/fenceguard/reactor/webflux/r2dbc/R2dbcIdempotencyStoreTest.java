package io.fenceguard.reactor.webflux.r2dbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.admission.IdempotencyStore.Claim;
import io.fenceguard.admission.IdempotencyStore.RecordedResponse;
import io.fenceguard.admission.IdempotentAdmissionStore.ClaimedAdmission;
import io.fenceguard.admission.NonBlockingIdempotencyStore;
import io.fenceguard.admission.SignedAdmissionStore;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.admission.JdbcHighWaterStore;
import io.fenceguard.reactor.r2dbc.TestR2dbc;
import io.r2dbc.postgresql.PostgresqlConnectionConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The R2DBC store's idempotency keys on real PostgreSQL, the non-blocking calls each subscribed on a Reactor
 * non-blocking thread (where any blocking call fails): the JDBC store's answers on the same rows (first, completed,
 * other request, in progress, a stale claim taken over, a replayed nonce claiming nothing, a stale token claiming
 * nothing), the blocking calls alike, the retention's minimum and purge, and failing closed.
 */
class R2dbcIdempotencyStoreTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private final R2dbcHighWaterStore store = R2dbcHighWaterStore.of(TestR2dbc.r2dbc());
    private final NonBlockingIdempotencyStore keys =
            store.nonBlocking().orElseThrow().idempotentAdmissions().orElseThrow();
    private final JdbcHighWaterStore jdbc = JdbcHighWaterStore.of(TestR2dbc.jdbc());
    private final List<String> threads = new CopyOnWriteArrayList<>();

    /** {@code call} subscribed on a non-blocking thread, the thread it was made on recorded. */
    private <T> T onEventLoop(Supplier<CompletionStage<T>> call) {
        return Mono.defer(() -> {
                    threads.add(Thread.currentThread().getName()
                            + (Schedulers.isInNonBlockingThread() ? " (non-blocking)" : ""));
                    return Mono.fromCompletionStage(call.get());
                })
                .subscribeOn(Schedulers.parallel())
                .block(WAIT);
    }

    private static Fence fence(ResourceName resource, long token) {
        return new Fence(resource, FencingToken.of(token));
    }

    private static ResourceName resource() {
        return ResourceName.of("account:keys-" + UUID.randomUUID());
    }

    private static RecordedResponse created(String body) {
        return new RecordedResponse(201, "application/json", body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void keysAreClaimedAnsweredAndForgottenWithoutLeavingTheEventLoop() {
        ResourceName account = resource();
        ClaimedAdmission first = onEventLoop(() -> keys.admitClaiming(fence(account, 5), null, "k-1", "fp-1"));
        assertThat(first.admission().admitted()).isTrue();
        assertThat(first.claim()).isEqualTo(Claim.first());
        assertThat(onEventLoop(() -> keys.admitClaiming(fence(account, 5), null, "k-1", "fp-1")).claim())
                .as("the first one runs").isEqualTo(Claim.inProgress());
        assertThat(onEventLoop(() -> keys.admitClaiming(fence(account, 5), null, "k-1", "fp-2")).claim())
                .as("the key came with another request").isEqualTo(Claim.otherRequest());

        onEventLoop(() -> keys.complete(account, "k-1", created("{\"entry\":1}")));
        Claim replayed = onEventLoop(() -> keys.admitClaiming(fence(account, 6), null, "k-1", "fp-1")).claim();
        assertThat(replayed.kind()).as("a newer holder resending it").isEqualTo(Claim.Kind.COMPLETED);
        assertThat(replayed.response().status()).isEqualTo(201);
        assertThat(replayed.response().contentType()).isEqualTo("application/json");
        assertThat(new String(replayed.response().body(), StandardCharsets.UTF_8)).isEqualTo("{\"entry\":1}");

        ClaimedAdmission stale = onEventLoop(() -> keys.admitClaiming(fence(account, 4), null, "k-2", "fp-1"));
        assertThat(stale.admission().admitted()).as("older than the mark").isFalse();
        assertThat(stale.claim()).as("a stale request claims nothing").isNull();
        assertThat(jdbc.claim(fence(account, 6), "k-2", "fp-1")).as("k-2 was left free").isEqualTo(Claim.first());

        assertThat(onEventLoop(() -> keys.admitClaiming(fence(account, 6), null, "k-3", "fp-3")).claim())
                .isEqualTo(Claim.first());
        onEventLoop(() -> keys.abandon(account, "k-3"));
        assertThat(onEventLoop(() -> keys.admitClaiming(fence(account, 6), null, "k-3", "fp-3")).claim())
                .as("abandoned: a retry runs").isEqualTo(Claim.first());

        assertThat(threads).hasSize(9).allSatisfy(thread -> assertThat(thread).startsWith("parallel")
                .endsWith("(non-blocking)"));
    }

    @Test
    void aReplayedNonceClaimsNothing() {
        ResourceName account = resource();
        SignedAdmissionStore.Nonce nonce = new SignedAdmissionStore.Nonce("k1:" + UUID.randomUUID(),
                Instant.now().plusSeconds(300));
        assertThat(onEventLoop(() -> keys.admitClaiming(fence(account, 5), nonce, "k-1", "fp")).claim())
                .isEqualTo(Claim.first());
        ClaimedAdmission replay = onEventLoop(() -> keys.admitClaiming(fence(account, 5), nonce, "k-2", "fp"));
        assertThat(replay).isEqualTo(ClaimedAdmission.replayed());
        assertThat(jdbc.claim(fence(account, 5), "k-2", "fp")).as("the replay left k-2 free").isEqualTo(Claim.first());
    }

    @Test
    void aClaimLeftUnansweredPastTheTimeoutIsTakenOverAndOneWithinItIsNot() throws SQLException {
        ResourceName account = resource();
        onEventLoop(() -> keys.admitClaiming(fence(account, 5), null, "warm", "fp"));
        insertClaim(account, "dead", Instant.now().minus(JdbcHighWaterStore.IN_PROGRESS_TIMEOUT).minusSeconds(5));
        insertClaim(account, "running", Instant.now().minus(JdbcHighWaterStore.IN_PROGRESS_TIMEOUT).plusSeconds(30));
        assertThat(onEventLoop(() -> keys.admitClaiming(fence(account, 5), null, "dead", "fp")).claim())
                .as("its request's process died: taken over").isEqualTo(Claim.first());
        assertThat(onEventLoop(() -> keys.admitClaiming(fence(account, 5), null, "running", "fp")).claim())
                .isEqualTo(Claim.inProgress());
        assertThat(store.claim(fence(account, 5), "running", "fp")).as("the blocking call alike")
                .isEqualTo(Claim.inProgress());
    }

    @Test
    void theBlockingCallsAnswerAlikeOnTheSameRowsAsTheJdbcStore() {
        ResourceName account = resource();
        assertThat(store.admitClaiming(fence(account, 5), null, "k-1", "fp").claim()).isEqualTo(Claim.first());
        assertThat(jdbc.admitClaiming(fence(account, 5), null, "k-1", "fp").claim()).isEqualTo(Claim.inProgress());
        store.complete(account, "k-1", created("{\"entry\":\"r2dbc\"}"));
        Claim seen = jdbc.claim(fence(account, 5), "k-1", "fp");
        assertThat(seen.kind()).isEqualTo(Claim.Kind.COMPLETED);
        assertThat(new String(seen.response().body(), StandardCharsets.UTF_8)).isEqualTo("{\"entry\":\"r2dbc\"}");

        assertThat(jdbc.admitClaiming(fence(account, 6), null, "k-2", "fp").claim()).isEqualTo(Claim.first());
        jdbc.complete(account, "k-2", new RecordedResponse(200, null, new byte[0]));
        Claim recorded = onEventLoop(() -> keys.admitClaiming(fence(account, 6), null, "k-2", "fp")).claim();
        assertThat(recorded.kind()).isEqualTo(Claim.Kind.COMPLETED);
        assertThat(recorded.response().status()).isEqualTo(200);
        assertThat(recorded.response().contentType()).isNull();
        assertThat(recorded.response().body()).isEmpty();
        assertThat(store.claim(fence(account, 6), "k-2", "other")).isEqualTo(Claim.otherRequest());
        store.abandon(account, "k-2");
        assertThat(jdbc.claim(fence(account, 6), "k-2", "fp").kind()).as("a recorded response is not abandoned")
                .isEqualTo(Claim.Kind.COMPLETED);
    }

    @Test
    void aShorterRetentionPurgesWhatIsPastItAndKeepsWhatIsWithinIt() throws SQLException {
        R2dbcHighWaterStore shorter = store.withIdempotencyRetention(Duration.ofMinutes(10));
        assertThat(shorter.idempotencyRetention()).isEqualTo(Duration.ofMinutes(10));
        assertThat(store.idempotencyRetention()).isEqualTo(JdbcHighWaterStore.RETENTION);
        NonBlockingIdempotencyStore shorterKeys = shorter.nonBlocking().orElseThrow().idempotentAdmissions().orElseThrow();
        ResourceName account = resource();
        String past = "past-" + UUID.randomUUID();
        String within = "within-" + UUID.randomUUID();
        insertClaim(account, past, Instant.now().minus(Duration.ofMinutes(11)));
        insertClaim(account, within, Instant.now().minus(Duration.ofMinutes(9)));
        // The purge runs on one call in 256: 4000 calls miss it with a chance below 10^-6.
        for (int i = 0; i < 4000 && rows(past) > 0; i++) {
            int n = i;
            onEventLoop(() -> shorterKeys.admitClaiming(fence(account, 5), null, "k" + n, "fp"));
        }
        assertThat(rows(past)).as("the record past the 10 min retention").isZero();
        assertThat(rows(within)).as("the record within it").isOne();
    }

    @Test
    void aRetentionShorterThanAClaimMayRunIsRefusedAsByTheJdbcStore() {
        assertThatIllegalArgumentException().isThrownBy(() -> store.withIdempotencyRetention(Duration.ofSeconds(30)))
                .withMessage("an idempotency retention is at least PT1M (a claim may be in progress that long), got PT30S");
        assertThatIllegalArgumentException().isThrownBy(() -> jdbc.withIdempotencyRetention(Duration.ofSeconds(30)))
                .withMessage("an idempotency retention is at least PT1M (a claim may be in progress that long), got PT30S");
    }

    @Test
    void aStoreThatCannotAnswerFailsClosedNamingTheResource() {
        R2dbcHighWaterStore unreachable = R2dbcHighWaterStore.of(new PostgresqlConnectionFactory(
                PostgresqlConnectionConfiguration.builder().host("127.0.0.1").port(1).username("nobody")
                        .connectTimeout(Duration.ofSeconds(2)).build()));
        NonBlockingIdempotencyStore unreachableKeys =
                unreachable.nonBlocking().orElseThrow().idempotentAdmissions().orElseThrow();
        ResourceName account = ResourceName.of("account:unreachable");
        assertThatThrownBy(() -> onEventLoop(() -> unreachableKeys.admitClaiming(fence(account, 1), null, "k", "fp")))
                .isInstanceOf(FenceguardException.class)
                .hasMessageStartingWith("high-water store unavailable for 'account:unreachable'");
        assertThatThrownBy(() -> onEventLoop(() -> unreachableKeys.complete(account, "k", created("{}"))))
                .isInstanceOf(FenceguardException.class)
                .hasMessageStartingWith("idempotency store unavailable for 'account:unreachable'");
        assertThatThrownBy(() -> unreachable.abandon(account, "k"))
                .isInstanceOf(FenceguardException.class)
                .hasMessageStartingWith("idempotency store unavailable for 'account:unreachable'");
    }

    private static void insertClaim(ResourceName account, String key, Instant created) throws SQLException {
        try (Connection c = TestR2dbc.jdbc().getConnection();
             PreparedStatement row = c.prepareStatement("INSERT INTO " + JdbcHighWaterStore.IDEMPOTENCY_TABLE
                     + " (resource, idem_key, fingerprint, token, created_at) VALUES (?, ?, 'fp', 5, ?)")) {
            row.setString(1, account.value());
            row.setString(2, key);
            row.setTimestamp(3, Timestamp.from(created));
            row.executeUpdate();
        }
    }

    private static long rows(String key) throws SQLException {
        try (Connection c = TestR2dbc.jdbc().getConnection();
             PreparedStatement count = c.prepareStatement("SELECT COUNT(*) FROM " + JdbcHighWaterStore.IDEMPOTENCY_TABLE
                     + " WHERE idem_key = ?")) {
            count.setString(1, key);
            try (ResultSet rows = count.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }
}
