package io.fenceguard.jdbc;

import static io.fenceguard.jdbc.TestFence.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Refusal;
import io.fenceguard.core.ResourceName;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The refusal listener ({@link FencingConfig.Builder#onRefusal}) hears of each refused statement once, on the
 * caller's thread, and the caller still gets the same exception; a listener that throws changes nothing. On
 * PostgreSQL: a stale write refused by the database and a statement the guard will not send.
 */
class RefusalListenerTest {

    private static final String TABLE = "fg_refusal_listener";
    private static final String UPDATE = "UPDATE " + TABLE + " SET balance = ? WHERE id = 1";

    @Test
    void eachRefusalIsToldOnceAndReachesTheCallerUnchanged() throws Exception {
        DataSource raw = TestDatabases.of(SqlDialect.POSTGRESQL);
        TestDatabases.execute(raw, "DROP TABLE IF EXISTS " + TABLE,
                "CREATE TABLE " + TABLE + " (id INT PRIMARY KEY, balance BIGINT NOT NULL, current_token BIGINT)",
                "INSERT INTO " + TABLE + " (id, balance) VALUES (1, 100)");
        List<Refusal> told = new CopyOnWriteArrayList<>();
        List<Thread> threads = new CopyOnWriteArrayList<>();
        DataSource fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence(TABLE).onRefusal(refusal -> {
            told.add(refusal);
            threads.add(Thread.currentThread());
        }).build());

        assertThat(as("account:1", 10, () -> write(fenced, 110))).isEqualTo(1);
        assertThat(told).as("an admitted write is no refusal").isEmpty();

        Throwable stale = catchThrowable(() -> as("account:1", 9, () -> write(fenced, 666)));
        assertThat(stale).isInstanceOf(StaleTokenException.class);
        assertThat(told).singleElement().satisfies(refusal -> {
            assertThat(refusal.original()).isSameAs(stale);
            assertThat(refusal.layer()).isEqualTo(Refusal.Layer.JDBC);
            assertThat(refusal.reason()).isEqualTo("stale");
            assertThat(refusal.resource()).contains(ResourceName.of("account:1"));
            assertThat(refusal.token()).contains(FencingToken.of(9));
            assertThat(refusal.where()).contains(UPDATE);
        });
        assertThat(threads).containsExactly(Thread.currentThread());

        Throwable refused = catchThrowable(() -> as("account:1", 11, () -> {
            try (Connection c = fenced.getConnection(); Statement s = c.createStatement()) {
                return s.executeUpdate("UPDATE " + TABLE + " SET balance = 7 WHERE id = 1");
            }
        }));
        assertThat(refused).isInstanceOf(FencingRefusedException.class);
        assertThat(told).hasSize(2).last().satisfies(refusal -> {
            assertThat(refusal.original()).isSameAs(refused);
            assertThat(refusal.reason()).isEqualTo(((FencingRefusedException) refused).reason().name()
                    .toLowerCase(java.util.Locale.ROOT));
            assertThat(refusal.where()).contains("UPDATE " + TABLE + " SET balance = 7 WHERE id = 1");
        });
        assertThat(balance(raw)).as("nothing changed by the refused statements").isEqualTo(110);
    }

    @Test
    void aListenerThatThrowsChangesNothing() throws Exception {
        DataSource raw = TestDatabases.of(SqlDialect.POSTGRESQL);
        TestDatabases.execute(raw, "DROP TABLE IF EXISTS " + TABLE,
                "CREATE TABLE " + TABLE + " (id INT PRIMARY KEY, balance BIGINT NOT NULL, current_token BIGINT)",
                "INSERT INTO " + TABLE + " (id, balance) VALUES (1, 100)");
        DataSource fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence(TABLE).onRefusal(refusal -> {
            throw new IllegalStateException("listener bug");
        }).build());
        assertThat(as("account:1", 10, () -> write(fenced, 110))).isEqualTo(1);
        assertThat(catchThrowable(() -> as("account:1", 9, () -> write(fenced, 666))))
                .isInstanceOf(StaleTokenException.class);
        assertThat(balance(raw)).isEqualTo(110);
    }

    private static int write(DataSource dataSource, long balance) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(UPDATE)) {
            s.setLong(1, balance);
            return s.executeUpdate();
        }
    }

    private static long balance(DataSource raw) throws SQLException {
        try (Connection c = raw.getConnection();
                PreparedStatement s = c.prepareStatement("SELECT balance FROM " + TABLE + " WHERE id = 1");
                ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
