package io.fenceguard.reactor.webflux.r2dbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.SignedAdmissionStore;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.admission.JdbcHighWaterStore;
import io.fenceguard.reactor.r2dbc.TestR2dbc;
import io.fenceguard.admission.NonBlockingAdmissionStore;
import io.r2dbc.postgresql.PostgresqlConnectionConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The R2DBC store's non-blocking calls on real PostgreSQL, each subscribed on a Reactor non-blocking thread (where
 * any blocking call fails): the blocking stores' behaviours (stale token refused, replayed nonce refused, a second
 * instance sharing the tables sees the mark, and so does the blocking JDBC store), no thread of {@code boundedElastic}
 * used, and a store that cannot answer failing closed.
 */
class R2dbcNonBlockingStoreTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private final R2dbcHighWaterStore blocking = R2dbcHighWaterStore.of(TestR2dbc.r2dbc());
    private final NonBlockingAdmissionStore store = blocking.nonBlocking().orElseThrow();
    private final List<String> threads = new CopyOnWriteArrayList<>();

    /** {@code call} subscribed on a non-blocking thread, the threads it ran and answered on recorded. */
    private <T> T onEventLoop(Supplier<CompletionStage<T>> call) {
        return Mono.defer(() -> {
                    threads.add(thread());
                    return Mono.fromCompletionStage(call.get());
                })
                .doOnNext(answer -> threads.add(thread()))
                .subscribeOn(Schedulers.parallel())
                .block(WAIT);
    }

    private static String thread() {
        return Thread.currentThread().getName() + (Schedulers.isInNonBlockingThread() ? " (non-blocking)" : "");
    }

    private static Fence fence(String resource, long token) {
        return new Fence(ResourceName.of(resource), FencingToken.of(token));
    }

    private static String resource() {
        return "account:nb-" + UUID.randomUUID();
    }

    @Test
    void aNewerTokenClaimsTheSameContinuesAnOlderIsRefusedWithoutLeavingTheEventLoop() throws SQLException {
        String resource = resource();
        assertThat(onEventLoop(() -> store.admit(fence(resource, 10))).admitted()).isTrue();
        assertThat(onEventLoop(() -> store.admit(fence(resource, 10))).admitted()).as("the same token continues").isTrue();
        Admission stale = onEventLoop(() -> store.admit(fence(resource, 7)));
        assertThat(stale.admitted()).as("older than the mark").isFalse();
        assertThat(stale.highWater()).isEqualTo(FencingToken.of(10));
        assertThat(mark(resource)).isEqualTo(10L);

        assertThat(threads).isNotEmpty().allSatisfy(thread -> assertThat(thread).doesNotStartWith("boundedElastic"));
        assertThat(threads).filteredOn(thread -> thread.startsWith("parallel"))
                .as("subscribed on Reactor's non-blocking threads").hasSize(3)
                .allSatisfy(thread -> assertThat(thread).endsWith("(non-blocking)"));
        // The proof has teeth: the blocking call on the same thread is refused by Reactor.
        assertThatThrownBy(() -> Mono.fromCallable(() -> blocking.admit(fence(resource, 11)))
                        .subscribeOn(Schedulers.parallel()).block(WAIT))
                .isInstanceOf(FenceguardException.class)
                .hasMessageContaining("are blocking, which is not supported in thread parallel");
    }

    @Test
    void aReplayedNonceIsRefusedAndLeavesTheMark() throws SQLException {
        String resource = resource();
        SignedAdmissionStore.Nonce nonce = new SignedAdmissionStore.Nonce("k1:" + UUID.randomUUID(),
                Instant.now().plusSeconds(300));
        Optional<Admission> first = onEventLoop(() -> store.admit(fence(resource, 5), nonce));
        assertThat(first).hasValueSatisfying(admission -> assertThat(admission.admitted()).isTrue());
        Optional<Admission> replayed = onEventLoop(() -> store.admit(fence(resource, 6), nonce));
        assertThat(replayed).as("the nonce was used").isEmpty();
        assertThat(mark(resource)).as("a replay changes nothing").isEqualTo(5L);
        assertThat(onEventLoop(() -> store.firstUse(nonce.value(), nonce.expires()))).isFalse();
        assertThat(onEventLoop(() -> store.firstUse("k1:" + UUID.randomUUID(), nonce.expires()))).isTrue();
    }

    @Test
    void aSecondInstanceSharingTheTablesSeesTheMark() {
        String resource = resource();
        NonBlockingAdmissionStore other = R2dbcHighWaterStore.of(TestR2dbc.r2dbc()).nonBlocking().orElseThrow();
        assertThat(onEventLoop(() -> store.admit(fence(resource, 20))).admitted()).isTrue();
        Admission stale = onEventLoop(() -> other.admit(fence(resource, 19)));
        assertThat(stale.admitted()).isFalse();
        assertThat(stale.highWater()).isEqualTo(FencingToken.of(20));
        assertThat(onEventLoop(() -> other.admit(fence(resource, 21))).admitted()).isTrue();
        assertThat(onEventLoop(() -> store.admit(fence(resource, 20))).admitted()).as("21 seen by the first").isFalse();
    }

    @Test
    void theBlockingJdbcStoreAndTheNonBlockingOneShareTheirMarks() throws SQLException {
        String resource = resource();
        JdbcHighWaterStore jdbc = JdbcHighWaterStore.of(TestR2dbc.jdbc(), JdbcHighWaterStore.DEFAULT_TABLE);
        assertThat(jdbc.admit(fence(resource, 30)).admitted()).isTrue();
        Admission stale = onEventLoop(() -> store.admit(fence(resource, 29)));
        assertThat(stale.admitted()).as("the blocking store's mark refuses").isFalse();
        assertThat(stale.highWater()).isEqualTo(FencingToken.of(30));
        assertThat(onEventLoop(() -> store.admit(fence(resource, 31))).admitted()).isTrue();
        assertThat(jdbc.admit(fence(resource, 30)).admitted()).as("31 seen by the blocking store").isFalse();
        assertThat(mark(resource)).isEqualTo(31L);
    }

    @Test
    void aStoreThatCannotAnswerFailsClosedNamingTheResource() {
        NonBlockingAdmissionStore unreachable = R2dbcHighWaterStore.of(new PostgresqlConnectionFactory(
                PostgresqlConnectionConfiguration.builder().host("127.0.0.1").port(1).username("nobody")
                        .connectTimeout(Duration.ofSeconds(2)).build())).nonBlocking().orElseThrow();
        assertThatThrownBy(() -> onEventLoop(() -> unreachable.admit(fence("account:unreachable", 1))))
                .isInstanceOf(FenceguardException.class)
                .hasMessageStartingWith("high-water store unavailable for 'account:unreachable'");
        assertThatThrownBy(() -> store.admit(null)).isInstanceOf(NullPointerException.class).hasMessage("presented");
    }

    private static Long mark(String resource) throws SQLException {
        try (Connection c = TestR2dbc.jdbc().getConnection(); PreparedStatement read = c.prepareStatement(
                "SELECT token FROM " + JdbcHighWaterStore.DEFAULT_TABLE + " WHERE resource = ?")) {
            read.setString(1, resource);
            try (ResultSet rows = read.executeQuery()) {
                return rows.next() ? rows.getLong(1) : null;
            }
        }
    }
}
