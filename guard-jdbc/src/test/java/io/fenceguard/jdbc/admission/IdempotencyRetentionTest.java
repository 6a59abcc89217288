package io.fenceguard.jdbc.admission;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.admission.support.Stores;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.TestServers;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Idempotency records past {@link JdbcHighWaterStore#RETENTION} are deleted also when every claim joins the
 * handler's transaction (join-handler-transaction): before, the purge ran only for claims outside a transaction, so
 * such an application's table grew by one row per request for good. On real PostgreSQL.
 */
class IdempotencyRetentionTest {

    @Test
    void claimsInsideTransactionsPurgeRecordsPastTheRetention() throws Exception {
        String schema = Stores.migratedPostgresSchema();
        try (HikariDataSource pool = Stores.postgres(schema, 4); HikariDataSource inTransactions = inTransactions(schema)) {
            JdbcHighWaterStore store = JdbcHighWaterStore.of(pool).joiningTransactions(inTransactions);
            ResourceName account = ResourceName.of("account:" + UUID.randomUUID().toString().substring(0, 8));
            try (Connection c = pool.getConnection();
                 PreparedStatement old = c.prepareStatement("INSERT INTO " + JdbcHighWaterStore.IDEMPOTENCY_TABLE
                         + " (resource, idem_key, fingerprint, token, created_at) VALUES (?, ?, 'fp', 1, ?)")) {
                old.setString(1, account.value());
                old.setString(2, "old");
                old.setTimestamp(3, Timestamp.from(Instant.now().minus(JdbcHighWaterStore.RETENTION).minus(Duration.ofHours(1))));
                old.executeUpdate();
            }
            // The purge runs on one claim in 256: 4000 claims miss it with a chance below 10^-6.
            for (int i = 0; i < 4000 && rows(pool, "old") > 0; i++) {
                store.claim(new Fence(account, FencingToken.of(5)), "k" + i, "fp"); // rolled back with its connection
            }
            assertThat(rows(pool, "old")).as("the record past its retention").isZero();
        }
    }

    @Test
    void aShorterRetentionPurgesWhatIsPastItAndKeepsWhatIsWithinIt() throws Exception {
        String schema = Stores.migratedPostgresSchema();
        try (HikariDataSource pool = Stores.postgres(schema, 4)) {
            JdbcHighWaterStore store = JdbcHighWaterStore.of(pool).withIdempotencyRetention(Duration.ofMinutes(10));
            assertThat(store.idempotencyRetention()).isEqualTo(Duration.ofMinutes(10));
            ResourceName account = ResourceName.of("account:" + UUID.randomUUID().toString().substring(0, 8));
            insert(pool, account, "past", Instant.now().minus(Duration.ofMinutes(11)));
            insert(pool, account, "within", Instant.now().minus(Duration.ofMinutes(9)));
            for (int i = 0; i < 4000 && rows(pool, "past") > 0; i++) {
                store.claim(new Fence(account, FencingToken.of(5)), "k" + i, "fp");
            }
            assertThat(rows(pool, "past")).as("the record past the 10 min retention").isZero();
            assertThat(rows(pool, "within")).as("the record within it").isEqualTo(1);
        }
    }

    @Test
    void aRetentionShorterThanAClaimMayRunIsRefused() throws Exception {
        String schema = Stores.migratedPostgresSchema();
        try (HikariDataSource pool = Stores.postgres(schema, 2)) {
            JdbcHighWaterStore store = JdbcHighWaterStore.of(pool);
            org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                    .isThrownBy(() -> store.withIdempotencyRetention(Duration.ofSeconds(30)))
                    .withMessageContaining("at least PT1M");
        }
    }

    private static void insert(HikariDataSource pool, ResourceName account, String key, Instant created) throws Exception {
        try (Connection c = pool.getConnection();
             PreparedStatement row = c.prepareStatement("INSERT INTO " + JdbcHighWaterStore.IDEMPOTENCY_TABLE
                     + " (resource, idem_key, fingerprint, token, created_at) VALUES (?, ?, 'fp', 1, ?)")) {
            row.setString(1, account.value());
            row.setString(2, key);
            row.setTimestamp(3, Timestamp.from(created));
            row.executeUpdate();
        }
    }

    /** Every connection as a handler's open transaction hands it out: auto-commit off. */
    private static HikariDataSource inTransactions(String schema) {
        JdbcEndpoint pg = TestServers.postgres();
        HikariConfig config = new HikariConfig();
        // The schema as a start-up parameter: set by a statement (setSchema), it would be rolled back with the first
        // transaction, and the claims would go to the default schema.
        config.setJdbcUrl(pg.url() + (pg.url().contains("?") ? "&" : "?") + "currentSchema=" + schema);
        config.setUsername(pg.user());
        config.setPassword(pg.password());
        config.setMaximumPoolSize(2);
        config.setAutoCommit(false);
        return new HikariDataSource(config);
    }

    private static long rows(HikariDataSource pool, String key) throws Exception {
        try (Connection c = pool.getConnection();
             PreparedStatement count = c.prepareStatement("SELECT COUNT(*) FROM " + JdbcHighWaterStore.IDEMPOTENCY_TABLE
                     + " WHERE idem_key = ?")) {
            count.setString(1, key);
            try (ResultSet rs = count.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
