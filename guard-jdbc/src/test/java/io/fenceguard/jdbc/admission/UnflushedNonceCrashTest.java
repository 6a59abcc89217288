package io.fenceguard.jdbc.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fenceguard.admission.Admission.Outcome;
import io.fenceguard.admission.SignedAdmissionStore.Nonce;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.test.support.PostgresProcess;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * On PostgreSQL a request-signed admission that leaves the mark as it was commits without waiting for its WAL flush,
 * so a crash can lose its nonce. Each test runs a server of its own, freezes its background writers (no WAL reaches
 * the operating system unless a commit waits for it), admits, kills the server and starts it again.
 */
class UnflushedNonceCrashTest {

    private static final ResourceName R = ResourceName.of("account:7");

    @Test
    void aNonceLostInACrashIsRefusedAfterItAndAClaimIsNotLost() throws Exception {
        assumeTrue(PostgresProcess.unavailableReason().isEmpty(), () -> PostgresProcess.unavailableReason().get());
        try (PostgresProcess pg = PostgresProcess.start()) {
            DataSource ds = dataSource(pg);
            // built before the migrations run, as an application's beans are
            JdbcHighWaterStore store = JdbcHighWaterStore.of(ds);
            FenceguardMigrations.migrate(ds);
            Instant now = Instant.now();
            assertThat(store.admit(fence(5), nonce("claim", now)).orElseThrow().outcome()).isEqualTo(Outcome.CLAIMED);

            pg.freezeBackgroundWriters();
            Nonce continued = nonce("continued", now);
            assertThat(store.admit(fence(5), continued).orElseThrow().outcome()).isEqualTo(Outcome.CONTINUED);
            assertThat(nonceRows(ds, continued)).as("committed: other sessions see it").isOne();
            pg.crash();
            pg.restart();

            assertThat(mark(ds)).as("a claim waits for its flush").isEqualTo(5);
            assertThat(nonceRows(ds, nonce("claim", now))).isOne();
            assertThat(nonceRows(ds, continued)).as("the continuing admission did not wait for its flush").isZero();
            assertThat(store.admit(fence(5), continued)).as("its replay after the crash").isEmpty();
            assertThat(store.admitClaiming(fence(5), continued, "key-1", "fp-1").admission())
                    .as("its replay with an idempotency key (a header the signature does not cover)").isNull();
            assertThat(store.firstUse(continued.value(), continued.expires())).as("its nonce checked on its own").isFalse();
            assertThat(store.admit(fence(9), nonce("signed-before-recovery", now))).isEmpty();
            assertThat(store.admit(fence(5), nonce("signed-just-after", Instant.now()))).isEmpty();
            assertThat(mark(ds)).as("refused admissions raise no mark").isEqualTo(5);

            Instant later = Instant.now().plusSeconds(11);
            assertThat(store.admit(fence(5), nonce("signed-later", later)).orElseThrow().outcome())
                    .isEqualTo(Outcome.CONTINUED);
            assertThat(store.admit(fence(6), nonce("newer-holder", later)).orElseThrow().outcome())
                    .isEqualTo(Outcome.CLAIMED);
            assertThat(store.admit(fence(6), nonce("signed-later", later))).as("a replay").isEmpty();
        }
    }

    /**
     * Joining the handler's transaction, the nonce is committed apart without waiting for its flush: the handler's
     * commit, when it wrote, flushes it too; a handler that rolled back leaves it to be lost in a crash, and refused.
     */
    @Test
    void joiningATransactionTheNonceIsFlushedByTheHandlersCommit() throws Exception {
        assumeTrue(PostgresProcess.unavailableReason().isEmpty(), () -> PostgresProcess.unavailableReason().get());
        try (PostgresProcess pg = PostgresProcess.start()) {
            DataSource ds = dataSource(pg);
            FenceguardMigrations.migrate(ds);
            JdbcHighWaterStore store = JdbcHighWaterStore.of(ds);
            Instant now = Instant.now();
            assertThat(store.admit(fence(5), nonce("claim", now)).orElseThrow().outcome()).isEqualTo(Outcome.CLAIMED);
            Nonce committed = nonce("handler-committed", now);
            Nonce rolledBack = nonce("handler-rolled-back", now);
            try (Connection handler = ds.getConnection(); Statement writes = handler.createStatement()) {
                writes.execute("CREATE TABLE handler_writes (id INT)");
                JdbcHighWaterStore joined = store.joiningTransactions(JdbcHighWaterStoreTest.holding(handler));
                pg.freezeBackgroundWriters();
                handler.setAutoCommit(false);
                assertThat(joined.admit(fence(5), committed).orElseThrow().outcome()).isEqualTo(Outcome.CONTINUED);
                writes.execute("INSERT INTO handler_writes VALUES (1)");
                handler.commit();
                assertThat(joined.admit(fence(5), rolledBack).orElseThrow().outcome()).isEqualTo(Outcome.CONTINUED);
                writes.execute("INSERT INTO handler_writes VALUES (2)");
                handler.rollback();
            }
            pg.crash();
            pg.restart();

            assertThat(nonceRows(ds, committed)).as("flushed by the handler's commit").isOne();
            assertThat(nonceRows(ds, rolledBack)).as("committed apart, without waiting for its flush").isZero();
            assertThat(store.admit(fence(5), committed)).isEmpty();
            assertThat(store.admit(fence(5), rolledBack)).as("its replay after the crash").isEmpty();
        }
    }

    @Test
    void withoutTheUnloggedTableEveryNonceWaitsForItsFlush() throws Exception {
        assumeTrue(PostgresProcess.unavailableReason().isEmpty(), () -> PostgresProcess.unavailableReason().get());
        try (PostgresProcess pg = PostgresProcess.start()) {
            DataSource ds = dataSource(pg);
            FenceguardMigrations.migrate(ds);
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                s.execute("DROP TABLE " + JdbcHighWaterStore.NONCE_SINCE_TABLE);
            }
            JdbcHighWaterStore store = JdbcHighWaterStore.of(ds);
            Instant now = Instant.now();
            assertThat(store.admit(fence(5), nonce("claim", now)).orElseThrow().outcome()).isEqualTo(Outcome.CLAIMED);

            pg.freezeBackgroundWriters();
            Nonce continued = nonce("continued", now);
            assertThat(store.admit(fence(5), continued).orElseThrow().outcome()).isEqualTo(Outcome.CONTINUED);
            pg.crash();
            pg.restart();

            assertThat(nonceRows(ds, continued)).isOne();
            assertThat(store.admit(fence(5), continued)).as("its replay after the crash").isEmpty();
            assertThat(store.admit(fence(5), nonce("signed-after", Instant.now())).orElseThrow().outcome())
                    .isEqualTo(Outcome.CONTINUED);
        }
    }

    private static DataSource dataSource(PostgresProcess pg) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(pg.endpoint().url());
        ds.setUser(pg.endpoint().user());
        ds.setPassword(pg.endpoint().password());
        return ds;
    }

    private static Fence fence(long token) {
        return new Fence(R, FencingToken.of(token));
    }

    private static Nonce nonce(String value, Instant created) {
        return new Nonce("k1:" + value, created, created.plusSeconds(30));
    }

    private static long nonceRows(DataSource ds, Nonce nonce) throws SQLException {
        return query(ds, "SELECT count(*) FROM " + JdbcHighWaterStore.NONCE_TABLE + " WHERE nonce = ?", nonce.value());
    }

    private static long mark(DataSource ds) throws SQLException {
        return query(ds, "SELECT token FROM " + JdbcHighWaterStore.DEFAULT_TABLE + " WHERE resource = ?", R.value());
    }

    private static long query(DataSource ds, String sql, String parameter) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, parameter);
            try (ResultSet rows = s.executeQuery()) {
                assertThat(rows.next()).as(sql).isTrue();
                return rows.getLong(1);
            }
        }
    }
}
