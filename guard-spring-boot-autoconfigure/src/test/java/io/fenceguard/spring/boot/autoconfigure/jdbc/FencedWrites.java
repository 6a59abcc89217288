package io.fenceguard.spring.boot.autoconfigure.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.jdbc.FencingRefusedException;
import io.fenceguard.jdbc.StaleTokenException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.Callable;
import javax.sql.DataSource;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Writes to the fenced table {@value #TABLE} that tell how often a DataSource fences: once (stamped,
 * stale refused as stale), twice (every fenced write refused before it reaches the database: the outer
 * rewrite sets the token column, which the inner one refuses) or not at all.
 */
public final class FencedWrites {

    public static final String TABLE = "fg_acc";
    private static final String UPDATE = "UPDATE " + TABLE + " SET balance = ? WHERE id = 1";

    private FencedWrites() {
    }

    public static void recreate(ScratchDatabase db) throws SQLException {
        db.execute("DROP TABLE IF EXISTS " + TABLE,
                "CREATE TABLE " + TABLE + " (id INT PRIMARY KEY, balance BIGINT NOT NULL, current_token BIGINT)",
                "INSERT INTO " + TABLE + " (id, balance) VALUES (1, 100)");
    }

    public static void assertFencedOnce(DataSource dataSource, ScratchDatabase db) throws Exception {
        recreate(db);
        assertThatThrownBy(() -> write(dataSource, 1))
                .isInstanceOfSatisfying(FencingRefusedException.class,
                        e -> assertThat(e.reason()).isEqualTo(FencingRefusedException.Reason.NO_LEASE));
        assertThat(as(10, () -> write(dataSource, 110))).isEqualTo(1);
        assertThat(row(db)).isEqualTo("110@10");
        assertThatThrownBy(() -> as(9, () -> write(dataSource, 666)))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.fence()).isEqualTo(Fence.of("account:1", "9"));
                    assertThat(e.sql()).isEqualTo(UPDATE);
                });
        assertThat(row(db)).isEqualTo("110@10");
    }

    public static void assertJdbcTemplateFencedOnce(JdbcTemplate jdbc, TransactionTemplate tx, ScratchDatabase db)
            throws Exception {
        recreate(db);
        Integer updated = as(10, () -> tx.execute(status -> jdbc.update(UPDATE, 110)));
        assertThat(updated).isEqualTo(1);
        assertThat(row(db)).isEqualTo("110@10");
        assertThatThrownBy(() -> as(9, () -> tx.execute(status -> jdbc.update(UPDATE, 666))))
                .isInstanceOf(ConcurrencyFailureException.class)
                .cause().isInstanceOf(StaleTokenException.class);
        assertThat(row(db)).isEqualTo("110@10");
    }

    /** Writes without a lease go through as written: nothing stamps the token. */
    public static void assertUnfenced(DataSource dataSource, ScratchDatabase db) throws Exception {
        recreate(db);
        assertThat(write(dataSource, 120)).isEqualTo(1);
        assertThat(row(db)).isEqualTo("120@0");
    }

    public static <T> T as(long token, Callable<T> work) throws Exception {
        try (Lease lease = Lease.presented(Fence.of("account:1", Long.toString(token)), "test");
             LeaseContext.Scope scope = LeaseContext.bind(lease)) {
            return work.call();
        }
    }

    public static int write(DataSource dataSource, long balance) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(UPDATE)) {
            s.setLong(1, balance);
            return s.executeUpdate();
        }
    }

    /** balance@token of row 1, read past the fence. */
    public static String row(ScratchDatabase db) throws SQLException {
        try (Connection c = db.physical().getConnection();
             PreparedStatement s = c.prepareStatement("SELECT balance, current_token FROM " + TABLE + " WHERE id = 1");
             ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getLong(1) + "@" + rs.getLong(2);
        }
    }
}
