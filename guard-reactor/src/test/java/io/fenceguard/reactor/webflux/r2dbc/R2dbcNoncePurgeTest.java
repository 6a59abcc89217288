package io.fenceguard.reactor.webflux.r2dbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.NonBlockingAdmissionStore;
import io.fenceguard.admission.SignedAdmissionStore;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.admission.JdbcHighWaterStore;
import io.fenceguard.reactor.r2dbc.TestR2dbc;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The R2DBC store deletes expired nonces now and then, as the JDBC store does, so that an R2DBC-only service's nonce
 * table does not grow without end; nonces not yet expired stay (a replay of them is still refused). In a schema of
 * its own: no other store's purge can be what removed the row.
 */
class R2dbcNoncePurgeTest {

    private final String schema = "r2dbc_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final PGSimpleDataSource jdbc = TestR2dbc.migratedSchema(schema);
    private final R2dbcHighWaterStore store = R2dbcHighWaterStore.of(TestR2dbc.r2dbc(),
            schema + "." + JdbcHighWaterStore.DEFAULT_TABLE);
    private final NonBlockingAdmissionStore nonBlocking = store.nonBlocking().orElseThrow();

    @AfterEach
    void dropSchema() {
        TestR2dbc.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }

    @Test
    void expiredNoncesAreDeletedNowAndThenAndLiveOnesKept() throws SQLException {
        String expired = "expired:" + UUID.randomUUID();
        String live = "live:" + UUID.randomUUID();
        insertNonce(expired, Instant.now().minus(Duration.ofMinutes(1)));
        insertNonce(live, Instant.now().plus(Duration.ofMinutes(5)));
        Fence fence = new Fence(ResourceName.of("account:purge-" + UUID.randomUUID()), FencingToken.of(5));
        // The purge runs on one call in 256, blocking or not: 4000 calls miss it with a chance below 10^-6.
        for (int i = 0; i < 4000 && exists(expired); i++) {
            SignedAdmissionStore.Nonce nonce = new SignedAdmissionStore.Nonce("n:" + UUID.randomUUID(),
                    Instant.now().plusSeconds(300));
            if (i % 2 == 0) {
                assertThat(nonBlocking.admit(fence, nonce).toCompletableFuture().join()).isPresent();
            } else {
                assertThat(store.admit(fence, nonce.value(), nonce.expires())).isPresent();
            }
        }
        assertThat(exists(expired)).as("the nonce past its expiry").isFalse();
        assertThat(exists(live)).as("the nonce not yet expired").isTrue();
        assertThat(nonBlocking.admit(fence, new SignedAdmissionStore.Nonce(live, Instant.now().plusSeconds(300)))
                .toCompletableFuture().join()).as("a replay of the live nonce").isEmpty();
    }

    private void insertNonce(String nonce, Instant expires) throws SQLException {
        try (Connection c = jdbc.getConnection(); PreparedStatement row = c.prepareStatement(
                "INSERT INTO " + JdbcHighWaterStore.NONCE_TABLE + " (nonce, expires_at) VALUES (?, ?)")) {
            row.setString(1, nonce);
            row.setTimestamp(2, Timestamp.from(expires));
            row.executeUpdate();
        }
    }

    private boolean exists(String nonce) throws SQLException {
        try (Connection c = jdbc.getConnection(); PreparedStatement read = c.prepareStatement(
                "SELECT 1 FROM " + JdbcHighWaterStore.NONCE_TABLE + " WHERE nonce = ?")) {
            read.setString(1, nonce);
            try (ResultSet rows = read.executeQuery()) {
                return rows.next();
            }
        }
    }
}
