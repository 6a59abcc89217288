package io.fenceguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An old and a new holder hammer the same rows from many threads. Every row records the sequence
 * number of the old holder's last write and of the new holder's first: no old write may follow a
 * new one, and every write that reported success must be counted in the row.
 */
class ConcurrentHoldersTest {

    private static final int ROWS = 5;
    private static final int THREADS_PER_HOLDER = 4;
    private static final int WRITES_PER_THREAD = 150;

    @ParameterizedTest
    @EnumSource(value = SqlDialect.class, names = {"POSTGRESQL", "MARIADB"})
    void olderHolderNeverWritesAfterTheNewerOne(SqlDialect dialect) throws Exception {
        DataSource raw = TestDatabases.of(dialect);
        String table = "fg_race_" + dialect.name().toLowerCase(Locale.ROOT);
        TestDatabases.execute(raw, "DROP TABLE IF EXISTS " + table, "CREATE TABLE " + table
                + " (id INT PRIMARY KEY, seq INT NOT NULL, old_hits INT NOT NULL, new_hits INT NOT NULL,"
                + " last_old_seq INT, first_new_seq INT, current_token BIGINT)");
        for (int id = 1; id <= ROWS; id++) {
            TestDatabases.execute(raw, "INSERT INTO " + table + " VALUES (" + id + ", 0, 0, 0, NULL, NULL, NULL)");
        }
        FencedDataSource fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence(table).build());
        // SET reads the row before this statement on both databases when the sequence goes last
        String oldWrite = "UPDATE " + table + " SET last_old_seq = seq + 1, old_hits = old_hits + 1, seq = seq + 1"
                + " WHERE id = ?";
        String newWrite = "UPDATE " + table + " SET first_new_seq = COALESCE(first_new_seq, seq + 1),"
                + " new_hits = new_hits + 1, seq = seq + 1 WHERE id = ?";
        AtomicIntegerArray oldSuccesses = new AtomicIntegerArray(ROWS + 1);
        AtomicIntegerArray newSuccesses = new AtomicIntegerArray(ROWS + 1);
        AtomicIntegerArray oldRejections = new AtomicIntegerArray(ROWS + 1);
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2 * THREADS_PER_HOLDER);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < THREADS_PER_HOLDER; t++) {
            workers.add(pool.submit(() -> hammer(fenced, 5, oldWrite, start, oldSuccesses, oldRejections)));
            workers.add(pool.submit(() -> hammer(fenced, 10, newWrite, start, newSuccesses, null)));
        }
        start.countDown();
        for (Future<?> worker : workers) {
            worker.get();
        }
        pool.shutdown();

        int rejected = 0;
        try (Connection c = raw.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT id, old_hits, new_hits, last_old_seq, first_new_seq, current_token, seq FROM " + table)) {
            while (rs.next()) {
                int id = rs.getInt(1);
                assertThat(rs.getInt(2)).as("old writes counted, row %d", id).isEqualTo(oldSuccesses.get(id));
                assertThat(rs.getInt(3)).as("new writes counted, row %d", id).isEqualTo(newSuccesses.get(id));
                assertThat(rs.getInt(7)).isEqualTo(oldSuccesses.get(id) + newSuccesses.get(id));
                Integer lastOld = (Integer) rs.getObject(4);
                Integer firstNew = (Integer) rs.getObject(5);
                if (lastOld != null && firstNew != null) {
                    assertThat(lastOld).as("row %d: old write after new", id).isLessThan(firstNew);
                }
                if (newSuccesses.get(id) > 0) {
                    assertThat(rs.getLong(6)).isEqualTo(10L);
                }
                rejected += oldRejections.get(id);
            }
        }
        assertThat(rejected).as("the race was real: old writes were rejected").isPositive();
        int newTotal = 0;
        for (int id = 1; id <= ROWS; id++) {
            newTotal += newSuccesses.get(id);
        }
        assertThat(newTotal).isEqualTo(THREADS_PER_HOLDER * WRITES_PER_THREAD);
    }

    private static Void hammer(FencedDataSource fenced, long token, String sql, CountDownLatch start,
                               AtomicIntegerArray successes, AtomicIntegerArray rejections) throws Exception {
        start.await();
        return TestFence.as("race", token, () -> {
            try (Connection c = fenced.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
                for (int i = 0; i < WRITES_PER_THREAD; i++) {
                    int id = ThreadLocalRandom.current().nextInt(1, ROWS + 1);
                    ps.setInt(1, id);
                    try {
                        if (ps.executeUpdate() == 1) {
                            successes.incrementAndGet(id);
                        }
                    } catch (StaleTokenException e) {
                        if (rejections == null) {
                            throw e;
                        }
                        rejections.incrementAndGet(id);
                    }
                }
            }
            return null;
        });
    }
}
