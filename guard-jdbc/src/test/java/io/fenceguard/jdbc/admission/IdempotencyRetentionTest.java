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

    /** Every connection as a handler's open transaction hands it out: auto-commit off. */
    private static HikariDataSource inTransactions(String schema) {
        JdbcEndpoint pg = TestServers.postgres();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(pg.url());
        config.setUsername(pg.user());
        config.setPassword(pg.password());
        config.setSchema(schema);
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
