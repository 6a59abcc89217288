package io.fenceguard.jdbc;

import static io.fenceguard.jdbc.TestFence.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.ResourceName;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The same fencing behaviour on every database; subclasses give the server and its dialect's SQL. */
abstract class RowFencingContract {

    static final String RESOURCE = "jobs:billing";

    protected DataSource raw;
    protected FencedDataSource fenced;
    protected String table;
    protected String users;

    abstract SqlDialect dialect();

    /** UPDATE of {@link #table} (alias a) joined with {@link #users} (alias u): balance += ?1 where u.name = ?2. */
    abstract String joinedUpdate();

    /** The schema (MariaDB: database) the test tables live in, as the database reports it. */
    String schema() throws SQLException {
        try (Connection c = raw.getConnection()) {
            return dialect() == SqlDialect.MARIADB ? c.getCatalog() : c.getSchema();
        }
    }

    /** {@code identifier} quoted the dialect's way, in the case the database stores it. */
    abstract String quoted(String identifier);

    @BeforeEach
    void createTables() throws Exception {
        raw = TestDatabases.of(dialect());
        table = "fg_acc_" + dialect().name().toLowerCase(Locale.ROOT);
        users = "fg_usr_" + dialect().name().toLowerCase(Locale.ROOT);
        TestDatabases.execute(raw, "DROP TABLE IF EXISTS " + table, "DROP TABLE IF EXISTS " + users,
                "CREATE TABLE " + table + " (id INT PRIMARY KEY, owner INT, balance INT NOT NULL,"
                        + " note VARCHAR(50), current_token BIGINT)",
                "CREATE TABLE " + users + " (id INT PRIMARY KEY, name VARCHAR(50))",
                "INSERT INTO " + table + " (id, owner, balance) VALUES (1, 1, 100), (2, 1, 200), (3, 2, 300)",
                "INSERT INTO " + users + " (id, name) VALUES (1, 'ann'), (2, 'bob')");
        TestDatabases.execute(raw, "DELETE FROM fenceguard_gate WHERE resource LIKE 'test:%'");
        fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence(table).build());
    }

    int update(String sql, Object... params) throws SQLException {
        try (Connection c = fenced.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            return ps.executeUpdate();
        }
    }

    List<String> rows() throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = raw.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, balance, current_token FROM " + table + " ORDER BY id")) {
            while (rs.next()) {
                rows.add(rs.getInt(1) + ":" + rs.getInt(2) + ":" + rs.getObject(3));
            }
        }
        return rows;
    }

    @Test
    void currentHolderWritesAndStampsItsToken() throws Exception {
        assertThat(as(RESOURCE, 10, () -> update("UPDATE " + table + " SET balance = ? WHERE id = ?", 111, 1)))
                .isEqualTo(1);
        assertThat(rows()).containsExactly("1:111:10", "2:200:null", "3:300:null");
    }

    @Test
    void sameHolderWritesTheSameRowAgain() throws Exception {
        as(RESOURCE, 10, () -> update("UPDATE " + table + " SET balance = ? WHERE id = ?", 111, 1));
        assertThat(as(RESOURCE, 10, () -> update("UPDATE " + table + " SET balance = ? WHERE id = ?", 112, 1)))
                .isEqualTo(1);
        assertThat(rows()).first().isEqualTo("1:112:10");
    }

    @Test
    void newerHolderClaimsARowAndTheOlderOneIsRejected() throws Exception {
        as(RESOURCE, 5, () -> update("UPDATE " + table + " SET balance = ? WHERE id = ?", 105, 1));
        as(RESOURCE, 10, () -> update("UPDATE " + table + " SET balance = ? WHERE id = ?", 110, 1));
        String sql = "UPDATE " + table + " SET balance = ? WHERE id = ?";
        assertThatThrownBy(() -> as(RESOURCE, 5, () -> update(sql, 666, 1)))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.resource()).isEqualTo(ResourceName.of(RESOURCE));
                    assertThat(e.token()).isEqualTo(FencingToken.of(5));
                    assertThat(e.fence()).isEqualTo(Fence.of(ResourceName.of(RESOURCE), FencingToken.of(5)));
                    assertThat(e.getMessage()).contains(RESOURCE, sql);
                    assertThat(e.table()).isEqualTo(table);
                    assertThat(e.sql()).isEqualTo(sql);
                    assertThat(e.getSQLState()).isEqualTo(StaleTokenException.SQL_STATE);
                });
        assertThat(rows()).first().isEqualTo("1:110:10");
    }

    @Test
    void aRowOutsideTheWhereClauseIsNotAnError() throws Exception {
        as(RESOURCE, 10, () -> update("UPDATE " + table + " SET balance = ? WHERE id = ?", 110, 1));
        assertThat(as(RESOURCE, 5, () -> update("UPDATE " + table + " SET balance = ? WHERE id = ?", 7, 999)))
                .isZero();
        assertThat(as(RESOURCE, 5, () -> update("DELETE FROM " + table + " WHERE id = ? OR id = ?", 2, 3)))
                .isEqualTo(2);
        assertThat(rows()).containsExactly("1:110:10");
    }

    @Test
    void aMultiRowStatementNeverAppliesPartially() throws Exception {
        as(RESOURCE, 10, () -> update("UPDATE " + table + " SET note = ? WHERE id = ?", "new", 2));
        List<String> before = rows();
        assertThatThrownBy(() -> as(RESOURCE, 5, () -> update("UPDATE " + table + " SET balance = balance + ?", 1)))
                .isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> as(RESOURCE, 5, () -> update("DELETE FROM " + table + " WHERE owner = ?", 1)))
                .isInstanceOf(StaleTokenException.class);
        assertThat(rows()).isEqualTo(before);
    }

    @Test
    void staleDeleteIsRejectedAndCurrentDeleteGoesThrough() throws Exception {
        as(RESOURCE, 10, () -> update("UPDATE " + table + " SET note = ? WHERE id = ?", "x", 1));
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update("DELETE FROM " + table + " WHERE id = ?", 1)))
                .isInstanceOf(StaleTokenException.class);
        assertThat(as(RESOURCE, 10, () -> update("DELETE FROM " + table + " WHERE id = ?", 1))).isEqualTo(1);
        assertThat(rows()).hasSize(2);
    }

    @Test
    void staleBatchIsRejected() throws Exception {
        as(RESOURCE, 10, () -> update("UPDATE " + table + " SET note = ? WHERE id = ?", "x", 3));
        assertThatThrownBy(() -> as(RESOURCE, 5, () -> {
            try (Connection c = fenced.getConnection()) {
                c.setAutoCommit(false);
                try (PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET balance = ? WHERE id = ?")) {
                    for (int id = 1; id <= 3; id++) {
                        ps.setInt(1, id * 1000);
                        ps.setInt(2, id);
                        ps.addBatch();
                    }
                    return ps.executeBatch();
                } finally {
                    c.rollback();
                }
            }
        })).isInstanceOf(StaleTokenException.class);
        assertThat(rows()).containsExactly("1:100:null", "2:200:null", "3:300:10");
        int[] counts = as(RESOURCE, 10, () -> {
            try (Connection c = fenced.getConnection();
                 PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET balance = ? WHERE id = ?")) {
                for (int id = 1; id <= 3; id++) {
                    ps.setInt(1, id * 1000);
                    ps.setInt(2, id);
                    ps.addBatch();
                }
                return ps.executeBatch();
            }
        });
        assertThat(counts).hasSize(3);
        assertThat(rows()).containsExactly("1:1000:10", "2:2000:10", "3:3000:10");
    }

    @Test
    void insertsAreStampedAndJoinedUpdatesFenceTheTarget() throws Exception {
        as(RESOURCE, 7, () -> update("INSERT INTO " + table + " (id, owner, balance) VALUES (?, ?, ?), (?, ?, ?)",
                4, 2, 400, 5, 2, 500));
        assertThat(rows()).contains("4:400:7", "5:500:7");
        assertThat(as(RESOURCE, 7, () -> update(joinedUpdate(), 1, "bob"))).isEqualTo(3);
        assertThat(rows()).contains("3:301:7", "4:401:7", "5:501:7");
        assertThatThrownBy(() -> as(RESOURCE, 6, () -> update(joinedUpdate(), 1, "bob")))
                .isInstanceOf(StaleTokenException.class);
        assertThat(as(RESOURCE, 6, () -> update(joinedUpdate(), 1, "ann"))).isEqualTo(2);
    }

    @Test
    void insertUnderTheMarkIsRejectedOnceANewerHolderClaimed() throws Exception {
        String resource = "test:mark-" + dialect();
        as(resource, 10, () -> claimedInsert(6));
        assertThatThrownBy(() -> as(resource, 9, () -> claimedInsert(7)))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.table()).isEqualTo("fenceguard_gate"));
        as(resource, 10, () -> claimedInsert(8));
        assertThat(rows()).contains("6:0:10", "8:0:10").noneMatch(r -> r.startsWith("7:"));
    }

    private int claimedInsert(int id) throws SQLException {
        try (Connection c = fenced.getConnection()) {
            c.setAutoCommit(false);
            try {
                HighWaterMarks.claim(c);
                try (PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO " + table + " (id, owner, balance) VALUES (?, 1, 0)")) {
                    ps.setInt(1, id);
                    int count = ps.executeUpdate();
                    c.commit();
                    return count;
                }
            } catch (SQLException e) {
                c.rollback();
                throw e;
            }
        }
    }

    @Test
    void markClaimedAtTheFirstStatementProtectsReadModifyWrite() throws Exception {
        FencedDataSource claiming = FencedDataSource.wrap(raw, FencingConfig.builder().fence(table)
                .claimMode(ClaimMode.FIRST_STATEMENT).build());
        String resource = "test:rmw-" + dialect();
        TestFence.SqlWork<Integer> readModifyWrite = () -> {
            try (Connection c = claiming.getConnection()) {
                c.setAutoCommit(false);
                try {
                    int balance;
                    try (PreparedStatement read = c.prepareStatement("SELECT balance FROM " + users
                            + " u JOIN " + table + " a ON a.owner = u.id WHERE a.id = ?")) {
                        read.setInt(1, 1);
                        try (ResultSet rs = read.executeQuery()) {
                            rs.next();
                            balance = rs.getInt(1);
                        }
                    }
                    try (PreparedStatement write = c.prepareStatement(
                            "INSERT INTO " + table + " (id, owner, balance) VALUES (?, 1, ?)")) {
                        write.setInt(1, 10 + balance / 100);
                        write.setInt(2, balance);
                        write.executeUpdate();
                    }
                    c.commit();
                    return balance;
                } catch (SQLException e) {
                    c.rollback();
                    throw e;
                }
            }
        };
        as(resource, 20, readModifyWrite);
        assertThatThrownBy(() -> as(resource, 19, readModifyWrite)).isInstanceOf(StaleTokenException.class);
        // an auto-commit write runs with the claim in a transaction of its own
        assertThatThrownBy(() -> as(resource, 19, () -> {
            try (Connection c = claiming.getConnection(); PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO " + users + " (id, name) VALUES (?, ?)")) {
                ps.setInt(1, 99);
                ps.setString(2, "late");
                return ps.executeUpdate();
            }
        })).isInstanceOf(StaleTokenException.class);
        assertThat(rows()).contains("11:100:20").noneMatch(r -> r.startsWith("99:"));
    }

    @Test
    void writesWithoutALeaseAreRefusedUnlessUnfenced() throws Exception {
        String sql = "UPDATE " + table + " SET balance = ? WHERE id = ?";
        assertThatThrownBy(() -> update(sql, 1, 1))
                .isInstanceOfSatisfying(FencingRefusedException.class, e -> {
                    assertThat(e.reason()).isEqualTo(FencingRefusedException.Reason.NO_LEASE);
                    assertThat(e.getMessage()).contains(sql).contains("Unfenced");
                });
        Unfenced.run(() -> {
            try {
                assertThat(update(sql, 1, 1)).isEqualTo(1);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(rows()).first().isEqualTo("1:1:null");
        try (Connection c = fenced.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT count(*) FROM " + table)) {
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                assertThat(rs.getInt(1)).isEqualTo(3);
            }
        }
    }

    @Test
    void plainStatementWriteUnderALeaseIsRefusedAndLostLeaseFailsFast() throws Exception {
        assertThatThrownBy(() -> as(RESOURCE, 5, () -> {
            try (Connection c = fenced.getConnection(); Statement s = c.createStatement()) {
                return s.executeUpdate("UPDATE " + table + " SET balance = 0");
            }
        })).isInstanceOfSatisfying(FencingRefusedException.class,
                e -> assertThat(e.reason()).isEqualTo(FencingRefusedException.Reason.TOKEN_WOULD_BE_INLINED));
        // A lease closed (released) before the write: its own validity check refuses, nothing reaches the database.
        Lease released = Lease.presented(Fence.of(ResourceName.of(RESOURCE), FencingToken.of(50)), "test");
        released.close();
        assertThatThrownBy(() -> as(released, () -> update("UPDATE " + table + " SET balance = ? WHERE id = ?", 0, 1)))
                .isInstanceOfSatisfying(FencingRefusedException.class, e -> {
                    assertThat(e.reason()).isEqualTo(FencingRefusedException.Reason.LEASE_LOST);
                    assertThat(e.fence()).contains(released.fence());
                    assertThat(e.getMessage()).contains(RESOURCE, "UPDATE " + table);
                });
        assertThat(rows()).containsExactly("1:100:null", "2:200:null", "3:300:null");
    }

    @Test
    void existingOrPredicatesKeepTheirPrecedence() throws Exception {
        as(RESOURCE, 10, () -> update("UPDATE " + table + " SET note = ? WHERE id = ?", "newer", 3));
        assertThat(as(RESOURCE, 9, () -> update("UPDATE " + table + " SET balance = ? WHERE id = ? OR id = ?",
                5, 1, 2))).isEqualTo(2);
        assertThat(rows()).containsExactly("1:5:9", "2:5:9", "3:300:10");
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update("UPDATE " + table
                + " SET balance = ? WHERE id = ? OR id = ?", 6, 2, 3))).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update("DELETE FROM " + table
                + " WHERE id = ? OR balance > ?", 99, 250))).isInstanceOf(StaleTokenException.class);
        assertThat(rows()).containsExactly("1:5:9", "2:5:9", "3:300:10");
        // row 3 is outside (owner = 1 OR id = 99): no error, and only rows 1 and 2 go
        assertThat(as(RESOURCE, 9, () -> update("DELETE FROM " + table + " WHERE owner = ? OR id = ?", 1, 99)))
                .isEqualTo(2);
        assertThat(rows()).containsExactly("3:300:10");
    }

    @Test
    void subSelectsAndInsertSelectKeepTheirParameters() throws Exception {
        String sub = "UPDATE " + table + " SET balance = ? WHERE owner IN (SELECT u.id FROM " + users
                + " u WHERE u.name = ?) AND balance > ?";
        assertThat(as(RESOURCE, 5, () -> update(sub, 1, "ann", 150))).isEqualTo(1);
        assertThat(rows()).containsExactly("1:100:null", "2:1:5", "3:300:null");
        assertThatThrownBy(() -> as(RESOURCE, 4, () -> update(sub, 2, "ann", 0)))
                .isInstanceOf(StaleTokenException.class);
        assertThat(as(RESOURCE, 4, () -> update(sub, 3, "bob", 0))).isEqualTo(1);
        assertThat(as(RESOURCE, 6, () -> update("INSERT INTO " + table + " (id, owner, balance) SELECT u.id + ?,"
                + " u.id, ? FROM " + users + " u WHERE u.name = ?", 10, 77, "bob"))).isEqualTo(1);
        assertThat(rows()).containsExactly("1:100:null", "2:1:5", "3:3:4", "12:77:6");
    }

    @Test
    void aliasesQuotedIdentifiersAndSchemaQualifiedNames() throws Exception {
        String qualified = quoted(schema()) + "." + quoted(table);
        String aliased = "UPDATE " + qualified + " x SET " + quoted("balance") + " = ? WHERE x." + quoted("id") + " = ?";
        assertThat(as(RESOURCE, 10, () -> update(aliased, 110, 1))).isEqualTo(1);
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update(aliased, 90, 1))).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update("DELETE FROM " + qualified + " WHERE "
                + quoted("id") + " = ?", 1))).isInstanceOf(StaleTokenException.class);
        assertThat(as(RESOURCE, 9, () -> update("DELETE FROM " + qualified + " WHERE " + quoted("id") + " = ?", 2)))
                .isEqualTo(1);
        assertThat(as(RESOURCE, 9, () -> update("INSERT INTO " + qualified + " (" + quoted("id") + ", "
                + quoted("owner") + ", " + quoted("balance") + ") VALUES (?, ?, ?)", 4, 1, 400))).isEqualTo(1);
        assertThat(rows()).containsExactly("1:110:10", "3:300:null", "4:400:9");

        // the configuration names the table with its schema; the SQL does not
        FencedDataSource bySchema = FencedDataSource.wrap(raw, FencingConfig.builder()
                .fence(schema() + "." + table).build());
        TestFence.SqlWork<Integer> unqualified = () -> {
            try (Connection c = bySchema.getConnection(); PreparedStatement ps = c.prepareStatement(
                    "UPDATE " + table + " SET balance = ? WHERE id = ?")) {
                ps.setInt(1, 1);
                ps.setInt(2, 1);
                return ps.executeUpdate();
            }
        };
        assertThatThrownBy(() -> as(RESOURCE, 8, unqualified)).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(unqualified::run).isInstanceOfSatisfying(FencingRefusedException.class,
                e -> assertThat(e.reason()).isEqualTo(FencingRefusedException.Reason.NO_LEASE));
        assertThat(as(RESOURCE, 11, unqualified)).isEqualTo(1);
        assertThat(rows()).containsExactly("1:1:11", "3:300:null", "4:400:9");
    }
}
