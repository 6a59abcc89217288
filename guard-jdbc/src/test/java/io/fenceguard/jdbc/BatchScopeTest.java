package io.fenceguard.jdbc;

import static io.fenceguard.jdbc.TestFence.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.jdbc.FencingRefusedException.Reason;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A batch runs in the scope its entries were added in: entries admitted inside {@link Unfenced} need
 * Unfenced at executeBatch, entries bound to a lease's token need that lease. Otherwise the whole
 * batch is refused and cleared, and nothing reaches the database.
 */
class BatchScopeTest {

    private static final String RESOURCE = "jobs:batch";

    private String table;
    private String other;
    private DataSource raw;
    private FencedDataSource fenced;

    private void setUp(SqlDialect dialect) throws Exception {
        raw = TestDatabases.of(dialect);
        table = "fg_bat_" + dialect.name().toLowerCase(Locale.ROOT);
        other = "fg_bat_free_" + dialect.name().toLowerCase(Locale.ROOT);
        TestDatabases.execute(raw, "DROP TABLE IF EXISTS " + table, "DROP TABLE IF EXISTS " + other,
                "CREATE TABLE " + table + " (id INT PRIMARY KEY, balance INT, current_token BIGINT)",
                "CREATE TABLE " + other + " (id INT PRIMARY KEY, balance INT)",
                "INSERT INTO " + table + " (id, balance) VALUES (1, 100), (2, 200)",
                "INSERT INTO " + other + " (id, balance) VALUES (1, 100)");
        fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence(table).build());
    }

    private List<String> rows() throws Exception {
        List<String> rows = new ArrayList<>();
        try (Connection c = raw.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT t.id, t.balance, t.current_token, o.balance FROM " + table
                     + " t, " + other + " o ORDER BY t.id")) {
            while (rs.next()) {
                rows.add(rs.getInt(1) + ":" + rs.getInt(2) + ":" + rs.getObject(3) + ":" + rs.getInt(4));
            }
        }
        return rows;
    }

    private static void assertBatchRefused(ThrowingRun run) {
        assertThatThrownBy(run::run).isInstanceOfSatisfying(FencingRefusedException.class,
                e -> assertThat(e.reason()).isEqualTo(Reason.BATCH_SCOPE));
    }

    @FunctionalInterface
    interface ThrowingRun {
        void run() throws Exception;
    }

    @ParameterizedTest
    @EnumSource(value = SqlDialect.class, names = {"POSTGRESQL", "MARIADB"})
    void aTextBatchBuiltInsideUnfencedRunsOnlyInsideIt(SqlDialect dialect) throws Exception {
        setUp(dialect);
        List<String> before = rows();
        try (Connection c = fenced.getConnection(); Statement s = c.createStatement()) {
            Unfenced.call(() -> {
                s.addBatch("UPDATE " + table + " SET balance = 1 WHERE id = 1");
                return null;
            });
            s.addBatch("UPDATE " + other + " SET balance = 2 WHERE id = 1");
            assertBatchRefused(s::executeBatch);
            assertBatchRefused(() -> as(RESOURCE, 10, () -> {
                Unfenced.call(() -> {
                    s.addBatch("UPDATE " + table + " SET balance = 1 WHERE id = 1");
                    return null;
                });
                return s.executeBatch();
            }));
            assertThat(rows()).isEqualTo(before);
            // refused batches were cleared: an empty batch sends nothing
            assertThat(s.executeBatch()).isEmpty();
            assertThat(rows()).isEqualTo(before);

            // mixed: a write to a free table added outside, a fenced write added inside, executed inside
            s.addBatch("UPDATE " + other + " SET balance = 3 WHERE id = 1");
            int[] counts = Unfenced.call(() -> {
                s.addBatch("UPDATE " + table + " SET balance = 4 WHERE id = 1");
                return s.executeBatch();
            });
            assertThat(counts).containsExactly(1, 1);
        }
        assertThat(rows()).containsExactly("1:4:null:3", "2:200:null:3");
    }

    @ParameterizedTest
    @EnumSource(value = SqlDialect.class, names = {"POSTGRESQL", "MARIADB"})
    void aPreparedBatchRunsUnderTheLeaseItsEntriesWereBoundTo(SqlDialect dialect) throws Exception {
        setUp(dialect);
        List<String> before = rows();
        String update = "UPDATE " + table + " SET balance = ? WHERE id = ?";
        try (Connection c = fenced.getConnection(); PreparedStatement ps = c.prepareStatement(update)) {
            as(RESOURCE, 10, () -> {
                ps.setInt(1, 11);
                ps.setInt(2, 1);
                ps.addBatch();
                return null;
            });
            // executed without a lease, under another lease, inside Unfenced: refused, nothing sent
            assertBatchRefused(ps::executeBatch);
            as(RESOURCE, 10, () -> {
                ps.setInt(1, 11);
                ps.setInt(2, 1);
                ps.addBatch();
                return null;
            });
            assertBatchRefused(() -> as(RESOURCE, 11, ps::executeBatch));
            as(RESOURCE, 10, () -> {
                ps.setInt(1, 11);
                ps.setInt(2, 1);
                ps.addBatch();
                return null;
            });
            assertBatchRefused(() -> as(RESOURCE, 10, () -> Unfenced.call(ps::executeBatch)));
            // entries added under two leases: the second add is refused, the batch cleared
            as(RESOURCE, 10, () -> {
                ps.setInt(1, 11);
                ps.setInt(2, 1);
                ps.addBatch();
                return null;
            });
            assertBatchRefused(() -> as(RESOURCE, 12, () -> {
                ps.setInt(1, 22);
                ps.setInt(2, 2);
                ps.addBatch();
                return null;
            }));
            assertThat(as(RESOURCE, 12, ps::executeBatch)).isEmpty();
            assertThat(rows()).isEqualTo(before);

            int[] counts = as(RESOURCE, 10, () -> {
                ps.setInt(1, 11);
                ps.setInt(2, 1);
                ps.addBatch();
                ps.setInt(1, 22);
                ps.setInt(2, 2);
                ps.addBatch();
                return ps.executeBatch();
            });
            assertThat(counts).hasSize(2);
        }
        assertThat(rows()).containsExactly("1:11:10:100", "2:22:10:100");
    }

    @ParameterizedTest
    @EnumSource(value = SqlDialect.class, names = {"POSTGRESQL", "MARIADB"})
    void aPreparedBatchBuiltInsideUnfencedRunsOnlyInsideIt(SqlDialect dialect) throws Exception {
        setUp(dialect);
        List<String> before = rows();
        String update = "UPDATE " + table + " SET balance = ? WHERE id = ?";
        try (Connection c = fenced.getConnection()) {
            PreparedStatement ps = Unfenced.call(() -> {
                PreparedStatement prepared = c.prepareStatement(update);
                prepared.setInt(1, 5);
                prepared.setInt(2, 1);
                prepared.addBatch();
                return prepared;
            });
            assertBatchRefused(ps::executeBatch);
            assertBatchRefused(() -> as(RESOURCE, 10, () -> {
                Unfenced.call(() -> {
                    ps.setInt(1, 5);
                    ps.setInt(2, 1);
                    ps.addBatch();
                    return null;
                });
                return ps.executeBatch();
            }));
            assertThat(rows()).isEqualTo(before);
            assertThat(Unfenced.call(() -> {
                ps.setInt(1, 5);
                ps.setInt(2, 1);
                ps.addBatch();
                return ps.executeBatch();
            })).hasSize(1);
            ps.close();
        }
        assertThat(rows()).containsExactly("1:5:null:100", "2:200:null:100");
    }
}
