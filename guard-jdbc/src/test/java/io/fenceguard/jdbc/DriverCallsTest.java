package io.fenceguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.sql.Array;
import java.sql.Connection;
import java.sql.Date;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Every setter, execution and getter a fenced statement hands to the driver without reflection reaches the driver
 * method of its own name, at the position the rewrite gives the parameter, with the value the application gave and
 * the type the interface returns; on PostgreSQL, read back through the driver alone.
 */
class DriverCallsTest {

    private static final String TABLE = "fg_driver_calls";
    private static final String COLUMNS = "i, l, s, b, sh, d, f, bd, ts, dt, by, o, n, arr";

    @Test
    void fencedStatementsPassEachValueToTheDriverMethodOfItsType() throws Exception {
        DataSource raw = TestDatabases.of(SqlDialect.POSTGRESQL);
        TestDatabases.execute(raw, "DROP TABLE IF EXISTS " + TABLE, "CREATE TABLE " + TABLE + " (id INT PRIMARY KEY,"
                + " i INT, l BIGINT, s VARCHAR(20), b BOOLEAN, sh SMALLINT, d DOUBLE PRECISION, f REAL, bd NUMERIC(10,2),"
                + " ts TIMESTAMP, dt DATE, by BYTEA, o VARCHAR(20), n INT, arr INT[], current_token BIGINT)");
        DataSource fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence(TABLE).build());
        Timestamp insertedAt = Timestamp.valueOf(LocalDateTime.of(2026, 1, 2, 3, 4, 5));
        Timestamp updatedAt = Timestamp.valueOf(LocalDateTime.of(2027, 6, 7, 8, 9, 10));

        TestFence.as("row:1", 7, () -> {
            try (Connection c = fenced.getConnection()) {
                try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + TABLE + " (id, " + COLUMNS
                        + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                    bindAll(insert, 1, c.createArrayOf("int4", new Object[] {1, 2, 3}), 41, 5_000_000_001L, "first",
                            true, (short) 301, 1.25, 2.5f, "12.34", insertedAt, "2026-01-02", new byte[] {1, 2});
                    assertThat(insert.executeUpdate()).isEqualTo(1);
                }
                // The token's parameters come before WHERE: the id is bound at a position the rewrite moved.
                try (PreparedStatement update = c.prepareStatement("UPDATE " + TABLE + " SET i = ?, l = ?, s = ?,"
                        + " b = ?, sh = ?, d = ?, f = ?, bd = ?, ts = ?, dt = ?, by = ?, o = ?, n = ?, arr = ?"
                        + " WHERE id = ?")) {
                    bindAll(update, 0, c.createArrayOf("int4", new Object[] {4, 5}), 42, 6_000_000_002L, "second",
                            false, (short) -302, -3.75, 4.5f, "-56.78", updatedAt, "2027-06-07", new byte[] {3, 4, 5});
                    update.setInt(15, 1);
                    assertThat(update.execute()).isFalse();
                    assertThat(update.getUpdateCount()).isEqualTo(1);
                }
                try (PreparedStatement select = c.prepareStatement("SELECT " + COLUMNS + " FROM " + TABLE
                        + " WHERE id = ?")) {
                    select.setInt(1, 1);
                    try (ResultSet rs = select.executeQuery()) {
                        assertThat(rs.getStatement()).isSameAs(select);
                        assertThat(rs.next()).isTrue();
                        assertThat(rs.getInt(1)).isEqualTo(42);
                        assertThat(rs.getInt("i")).isEqualTo(42);
                        assertThat(rs.getLong(2)).isEqualTo(6_000_000_002L);
                        assertThat(rs.getLong("l")).isEqualTo(6_000_000_002L);
                        assertThat(rs.getString(3)).isEqualTo("second");
                        assertThat(rs.getString("s")).isEqualTo("second");
                        assertThat(rs.getBoolean(4)).isFalse();
                        assertThat(rs.getBoolean("b")).isFalse();
                        assertThat(rs.getBigDecimal(8)).isEqualByComparingTo("-56.78");
                        assertThat(rs.getBigDecimal("bd")).isEqualByComparingTo("-56.78");
                        assertThat(rs.getTimestamp(9)).isEqualTo(updatedAt);
                        assertThat(rs.getTimestamp("ts")).isEqualTo(updatedAt);
                        assertThat(rs.getInt(13)).isZero();
                        assertThat(rs.wasNull()).isTrue();
                        assertThat(rs.next()).isFalse();
                    }
                }
            }
            return null;
        });

        try (Connection c = raw.getConnection(); PreparedStatement s = c.prepareStatement("SELECT " + COLUMNS
                + ", current_token FROM " + TABLE + " WHERE id = 1"); ResultSet rs = s.executeQuery()) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getObject(1)).isEqualTo(42);
            assertThat(rs.getObject(2)).isEqualTo(6_000_000_002L);
            assertThat(rs.getObject(3)).isEqualTo("second");
            assertThat(rs.getObject(4)).isEqualTo(false);
            assertThat(rs.getShort(5)).isEqualTo((short) -302);
            assertThat(rs.getDouble(6)).isEqualTo(-3.75);
            assertThat(rs.getFloat(7)).isEqualTo(4.5f);
            assertThat(rs.getBigDecimal(8)).isEqualByComparingTo("-56.78");
            assertThat(rs.getTimestamp(9)).isEqualTo(updatedAt);
            assertThat(rs.getDate(10).toLocalDate()).isEqualTo(LocalDate.of(2027, 6, 7));
            assertThat(rs.getBytes(11)).containsExactly(3, 4, 5);
            assertThat(rs.getObject(12)).isEqualTo("object-0");
            assertThat(rs.getObject(13)).isNull();
            assertThat((Object[]) rs.getArray(14).getArray()).containsExactly(4, 5);
            assertThat(rs.getLong(15)).isEqualTo(7L);
        }
    }

    /** Binds the columns of {@link #COLUMNS} from parameter {@code offset + 1}; an INSERT binds the id first. */
    private static void bindAll(PreparedStatement statement, int id, Array array, int i, long l, String s, boolean b,
            short sh, double d, float f, String bd, Timestamp ts, String dt, byte[] by) throws Exception {
        int p = 0;
        if (id > 0) {
            statement.setInt(++p, id);
        }
        statement.setInt(++p, i);
        statement.setLong(++p, l);
        statement.setString(++p, s);
        statement.setBoolean(++p, b);
        statement.setShort(++p, sh);
        statement.setDouble(++p, d);
        statement.setFloat(++p, f);
        statement.setBigDecimal(++p, new BigDecimal(bd));
        statement.setTimestamp(++p, ts);
        statement.setDate(++p, Date.valueOf(dt));
        statement.setBytes(++p, by);
        statement.setObject(++p, "object-" + id);
        statement.setNull(++p, Types.INTEGER);
        // a fenced array, as the fenced connection made it: the driver is given its own
        statement.setObject(++p, array);
    }
}
