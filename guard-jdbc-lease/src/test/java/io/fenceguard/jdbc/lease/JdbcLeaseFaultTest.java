package io.fenceguard.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Expiry by the database's clock, failed releases, hung statements and bad input, on both databases. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JdbcLeaseFaultTest {

    private ScratchDatabase postgres;
    private ScratchDatabase mariadb;

    @BeforeAll
    void createDatabases() {
        postgres = ScratchDatabase.on("postgresql");
    }

    @AfterAll
    void dropDatabases() {
        if (postgres != null) {
            postgres.close();
        }
        if (mariadb != null) {
            mariadb.close();
        }
    }

    private ScratchDatabase db(String kind) {
        if ("postgresql".equals(kind)) {
            return postgres;
        }
        if (mariadb == null) {
            mariadb = ScratchDatabase.on("mariadb"); // skipped with the reason when there is no MariaDB
        }
        return mariadb;
    }

    private static LeaseRequest request(ResourceName resource, String holder, Duration lease) {
        return new LeaseRequest(resource, holder, lease);
    }

    private static ResourceName fresh(String what) {
        return ResourceName.of("fault:" + what + ":" + UUID.randomUUID());
    }

    private static long tokenInRow(ScratchDatabase db, ResourceName resource) throws Exception {
        try (Connection c = db.dataSource().getConnection();
             PreparedStatement s = c.prepareStatement("SELECT token FROM fenceguard_lease WHERE resource = ?")) {
            s.setString(1, resource.value());
            try (ResultSet rs = s.executeQuery()) {
                assertThat(rs.next()).as("lease row of %s", resource).isTrue();
                return rs.getLong(1);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void aLeaseThatTheDatabaseClockSaysIsOverIsFree(String kind) throws Exception {
        ScratchDatabase db = db(kind);
        ResourceName resource = fresh("clock");
        try (JdbcLeaseProvider provider = JdbcLeaseProvider.of(db.dataSource())) {
            LeaseRequest first = request(resource, "first", Duration.ofHours(1));
            Grant grant = provider.acquire(first, Duration.ZERO);
            LeaseRequest second = request(resource, "second", Duration.ofHours(1));
            assertThatThrownBy(() -> provider.acquire(second, Duration.ZERO)).isInstanceOf(LeaseTimeoutException.class);

            // Only the database's clock counts: put the expiry one second behind it, the client's clock untouched.
            db.sql("UPDATE fenceguard_lease SET expires_at = " + ("mariadb".equals(kind)
                    ? "TIMESTAMPADD(SECOND, -1, UTC_TIMESTAMP(6))" : "now() - INTERVAL '1 second'")
                    + " WHERE resource = '" + resource.value() + "'");

            Grant next = provider.acquire(second, Duration.ZERO);
            assertThat(next.token()).isGreaterThan(grant.token());
            assertThat(provider.renew(first, grant).toCompletableFuture().get(5, TimeUnit.SECONDS)).isFalse();
            assertThat(provider.release(first, grant)).isFalse();
            assertThat(provider.release(second, next)).isTrue();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void aFailedReleaseLeavesTheRowToExpireAndTheNextTokenIsGreater(String kind) throws Exception {
        ScratchDatabase db = db(kind);
        ResourceName resource = fresh("failed-release");
        DataSource unreachable = db.unreachable();
        try (JdbcLeaseProvider provider = JdbcLeaseProvider.of(db.dataSource());
             JdbcLeaseProvider cutOff = JdbcLeaseProvider.of(unreachable);
             AutoCloseable pool = (AutoCloseable) unreachable) {
            LeaseRequest first = request(resource, "first", Duration.ofSeconds(1));
            Grant grant = provider.acquire(first, Duration.ZERO);

            assertThatThrownBy(() -> cutOff.release(first, grant)).isInstanceOf(LeaseUnavailableException.class)
                    .hasMessageContaining(resource.value());

            LeaseRequest second = request(resource, "second", Duration.ofSeconds(10));
            assertThatThrownBy(() -> provider.acquire(second, Duration.ZERO)).isInstanceOf(LeaseTimeoutException.class);
            long start = System.nanoTime();
            Grant next = provider.acquire(second, Duration.ofSeconds(10));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
            assertThat(next.token()).isGreaterThan(grant.token());
            assertThat(provider.release(second, next)).isTrue();
            // The row stays after release, with the counter in it: the next grant continues from there.
            assertThat(tokenInRow(db, resource)).isEqualTo(next.token().value());
            Grant third = provider.acquire(request(resource, "third", Duration.ofSeconds(10)), Duration.ZERO);
            assertThat(third.token().value()).isEqualTo(next.token().value() + 1);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void aStatementThatHangsIsCutOffByTheQueryTimeout(String kind) throws Exception {
        ScratchDatabase db = db(kind);
        ResourceName resource = fresh("hang");
        JdbcLeaseConfig config = JdbcLeaseConfig.builder().statementTimeout(Duration.ofSeconds(1)).build();
        try (JdbcLeaseProvider provider = JdbcLeaseProvider.of(db.dataSource(), config)) {
            LeaseRequest first = request(resource, "first", Duration.ofSeconds(30));
            Grant grant = provider.acquire(first, Duration.ZERO);
            provider.release(first, grant);
            // Another session holds the row lock and does not commit: the next statement on the row blocks.
            try (Connection blocker = db.dataSource().getConnection(); Statement s = blocker.createStatement()) {
                blocker.setAutoCommit(false);
                s.execute("SELECT token FROM fenceguard_lease WHERE resource = '" + resource.value() + "' FOR UPDATE");
                long start = System.nanoTime();
                assertThatThrownBy(() -> provider.acquire(request(resource, "second", Duration.ofSeconds(30)), Duration.ZERO))
                        .isInstanceOf(LeaseUnavailableException.class).hasMessageContaining(resource.value());
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
                blocker.rollback();
            }
        }
    }

    @Test
    void badInputIsRefusedBeforeTheDatabaseIsAsked() {
        assertThatThrownBy(() -> JdbcLeaseConfig.builder().tableName("lease; DROP TABLE x").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tableName");
        assertThatThrownBy(() -> JdbcLeaseConfig.builder().statementTimeout(Duration.ofMillis(10)).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JdbcLeaseConfig.builder().minPoll(Duration.ofSeconds(1)).maxPoll(Duration.ofMillis(1)).build())
                .isInstanceOf(IllegalArgumentException.class);
        ResourceName resource = fresh("bad");
        try (JdbcLeaseProvider provider = JdbcLeaseProvider.of(postgres.dataSource())) {
            assertThatThrownBy(() -> provider.acquire(request(resource, "h".repeat(256), Duration.ofSeconds(1)), Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("holder");
            assertThatThrownBy(() -> provider.acquire(request(resource, "h", Duration.ofSeconds(1)), Duration.ofMillis(-1)))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> tokenInRow(postgres, resource)).isInstanceOf(AssertionError.class);
    }

    @Test
    void aClosedProviderRefusesWithAClearError() {
        JdbcLeaseProvider provider = JdbcLeaseProvider.of(postgres.dataSource());
        provider.close();
        LeaseRequest r = request(fresh("closed"), "h", Duration.ofSeconds(1));
        assertThatThrownBy(() -> provider.acquire(r, Duration.ZERO)).isInstanceOf(LeaseUnavailableException.class)
                .hasMessageContaining("closed");
        assertThat(provider.renew(r, new Grant(io.fenceguard.core.FencingToken.of(1), 0)).toCompletableFuture())
                .isCompletedExceptionally();
    }
}
