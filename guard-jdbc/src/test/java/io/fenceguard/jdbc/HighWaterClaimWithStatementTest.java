package io.fenceguard.jdbc;

import static io.fenceguard.jdbc.TestFence.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * On PostgreSQL with {@link ClaimMode#FIRST_STATEMENT}, the high-water claim travels with the transaction's first
 * statement as one multi-statement execution (one round trip) instead of an execution of its own; the
 * caller sees exactly the results of its statement, and a stale claim still fails the statement before any
 * of it runs. Counted: executions the driver was asked for, through a counting DataSource under the guard.
 */
class HighWaterClaimWithStatementTest {

    private static final String TABLE = "fg_claim_together";
    private static final String RESOURCE = "account:together";

    private final AtomicInteger executions = new AtomicInteger();
    private DataSource raw;
    private DataSource fenced;

    @BeforeEach
    void setUp() throws Exception {
        raw = TestDatabases.of(SqlDialect.POSTGRESQL);
        TestDatabases.execute(raw, "DROP TABLE IF EXISTS " + TABLE,
                "CREATE TABLE " + TABLE + " (id INT PRIMARY KEY, balance BIGINT NOT NULL, current_token BIGINT)",
                "INSERT INTO " + TABLE + " (id, balance) VALUES (1, 100), (2, 200)",
                "DELETE FROM fenceguard_gate WHERE resource = '" + RESOURCE + "'");
        fenced = FencedDataSource.wrap(counting(raw), FencingConfig.builder().fence(TABLE)
                .claimMode(ClaimMode.FIRST_STATEMENT).build());
    }

    @Test
    void theClaimGoesWithTheFirstStatementAndTheCallerSeesItsOwnResults() throws Exception {
        long balance = as(RESOURCE, 50, () -> {
            try (Connection c = fenced.getConnection()) {
                c.setAutoCommit(false);
                long read;
                try (PreparedStatement select = c.prepareStatement("SELECT balance FROM " + TABLE + " WHERE id = ?")) {
                    select.setInt(1, 1);
                    executions.set(0);
                    try (ResultSet rows = select.executeQuery()) {
                        assertThat(executions).as("claim and SELECT in one execution").hasValue(1);
                        assertThat(rows.getStatement()).isSameAs(select);
                        assertThat(rows.next()).isTrue();
                        read = rows.getLong(1);
                        assertThat(rows.next()).isFalse();
                    }
                }
                try (PreparedStatement update = c.prepareStatement(
                        "UPDATE " + TABLE + " SET balance = ? WHERE id = ?")) {
                    update.setLong(1, read + 1);
                    update.setInt(2, 1);
                    executions.set(0);
                    assertThat(update.executeUpdate()).isEqualTo(1);
                    assertThat(executions).as("claimed already in this transaction").hasValue(1);
                }
                c.commit();
                return read;
            }
        });
        assertThat(balance).isEqualTo(100);
        assertThat(markToken()).isEqualTo(50);
        assertThat(value("SELECT balance || ':' || current_token FROM " + TABLE + " WHERE id = 1")).isEqualTo("101:50");
    }

    @Test
    void executeAndTheResultMethodsAnswerForTheStatementNotTheClaim() throws Exception {
        as(RESOURCE, 51, () -> {
            try (Connection c = fenced.getConnection()) {
                c.setAutoCommit(false);
                try (PreparedStatement update = c.prepareStatement("UPDATE " + TABLE + " SET balance = balance + ?")) {
                    update.setLong(1, 5);
                    assertThat(update.execute()).isFalse();
                    assertThat(update.getUpdateCount()).isEqualTo(2);
                    assertThat(update.getResultSet()).isNull();
                    assertThat(update.getMoreResults()).isFalse();
                    assertThat(update.getUpdateCount()).isEqualTo(-1);
                }
                c.commit();
                // the same statement, parameters set once, in the next transaction: claimed with it again
                try (PreparedStatement select = c.prepareStatement("SELECT id FROM " + TABLE + " WHERE balance > ?")) {
                    select.setLong(1, 150);
                    for (int round = 0; round < 2; round++) {
                        executions.set(0);
                        assertThat(select.execute()).isTrue();
                        assertThat(executions).hasValue(1);
                        try (ResultSet rows = select.getResultSet()) {
                            assertThat(rows.next()).isTrue();
                            assertThat(rows.getInt(1)).isEqualTo(2);
                            assertThat(rows.next()).isFalse();
                        }
                        c.commit();
                    }
                    select.clearParameters();
                    assertThatThrownBy(select::executeQuery).isInstanceOf(SQLException.class)
                            .hasMessageContaining("No value specified for parameter 1");
                    c.rollback();
                }
                return null;
            }
        });
        assertThat(value("SELECT string_agg(balance || ':' || current_token, ',' ORDER BY id) FROM " + TABLE))
                .isEqualTo("105:51,205:51");
    }

    @Test
    void aStaleClaimFailsTheStatementBeforeAnyOfItRuns() throws Exception {
        as(RESOURCE, 60, () -> {
            try (Connection c = fenced.getConnection(); PreparedStatement update = c.prepareStatement(
                    "UPDATE " + TABLE + " SET balance = ? WHERE id = 1")) {
                update.setLong(1, 600);
                return update.executeUpdate();   // auto-commit: a transaction of its own, claim included
            }
        });
        assertThat(markToken()).isEqualTo(60);
        // an older holder's read-modify-write: refused at its first statement, a read of another table's row
        assertThatThrownBy(() -> as(RESOURCE, 59, () -> {
            try (Connection c = fenced.getConnection()) {
                c.setAutoCommit(false);
                try (PreparedStatement select = c.prepareStatement("SELECT balance FROM " + TABLE + " WHERE id = 2")) {
                    return select.executeQuery();
                } finally {
                    c.rollback();
                }
            }
        })).isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.getMessage()).contains("fenceguard_gate"));
        // an auto-commit write of the older holder to a row no newer holder touched: the claim refuses it
        assertThatThrownBy(() -> as(RESOURCE, 59, () -> {
            try (Connection c = fenced.getConnection(); PreparedStatement update = c.prepareStatement(
                    "UPDATE " + TABLE + " SET balance = ? WHERE id = 2")) {
                update.setLong(1, 666);
                executions.set(0);
                try {
                    return update.executeUpdate();
                } finally {
                    assertThat(executions).as("claim and UPDATE in one execution").hasValue(1);
                }
            }
        })).isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.getMessage()).contains("fenceguard_gate"));
        assertThat(value("SELECT string_agg(balance || ':' || coalesce(current_token, 0), ',' ORDER BY id) FROM " + TABLE))
                .isEqualTo("600:60,200:0");
        assertThat(markToken()).isEqualTo(60);
    }

    @Test
    void aStatementWithAStreamParameterTakesTheClaimSeparately() throws Exception {
        as(RESOURCE, 70, () -> {
            try (Connection c = fenced.getConnection()) {
                c.setAutoCommit(false);
                try (PreparedStatement select = c.prepareStatement("SELECT length(?::text)")) {
                    select.setCharacterStream(1, new java.io.StringReader("abc"), 3);
                    executions.set(0);
                    try (ResultSet rows = select.executeQuery()) {
                        assertThat(executions).as("the claim, then the statement").hasValue(2);
                        rows.next();
                        assertThat(rows.getInt(1)).isEqualTo(3);
                    }
                }
                c.commit();
                return null;
            }
        });
        assertThat(markToken()).isEqualTo(70);
    }

    @Test
    void aClaimByTheTokenTheMarkHoldsLocksTheRowWithoutANewVersionOfIt() throws Exception {
        TestFence.SqlWork<Integer> write = () -> {
            try (Connection c = fenced.getConnection(); PreparedStatement update = c.prepareStatement(
                    "UPDATE " + TABLE + " SET balance = balance + 1 WHERE id = 1")) {
                return update.executeUpdate();
            }
        };
        as(RESOURCE, 80, write);
        String version = value("SELECT xmin::text FROM fenceguard_gate WHERE resource = '" + RESOURCE + "'");
        as(RESOURCE, 80, write);
        assertThat(value("SELECT xmin::text FROM fenceguard_gate WHERE resource = '" + RESOURCE + "'"))
                .as("same token: the row is only locked").isEqualTo(version);
        // and locked it is: a newer holder's claim waits for the older holder's open transaction
        try (Connection c = fenced.getConnection()) {
            c.setAutoCommit(false);
            as(RESOURCE, 80, () -> {
                try (PreparedStatement select = c.prepareStatement("SELECT 1")) {
                    return select.executeQuery();
                }
            });
            try (Connection other = raw.getConnection(); Statement s = other.createStatement()) {
                s.execute("SET lock_timeout = '300ms'");
                assertThatThrownBy(() -> s.executeUpdate("UPDATE fenceguard_gate SET token = 81 WHERE resource = '"
                        + RESOURCE + "'")).isInstanceOf(SQLException.class).hasMessageContaining("lock timeout");
            }
            c.rollback();
        }
        as(RESOURCE, 81, write);
        assertThat(value("SELECT xmin::text FROM fenceguard_gate WHERE resource = '" + RESOURCE + "'"))
                .as("a newer token writes the row").isNotEqualTo(version);
        assertThat(markToken()).isEqualTo(81);
    }

    private long markToken() throws SQLException {
        return Long.parseLong(value("SELECT token FROM fenceguard_gate WHERE resource = '" + RESOURCE + "'"));
    }

    private String value(String sql) throws SQLException {
        try (Connection c = raw.getConnection(); Statement s = c.createStatement(); ResultSet rows = s.executeQuery(sql)) {
            rows.next();
            return rows.getString(1);
        }
    }

    /** {@code dataSource} counting the executions asked of its statements. */
    private DataSource counting(DataSource dataSource) {
        return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
                (p, m, a) -> {
                    Object result = forward(dataSource, m, a);
                    return result instanceof Connection c ? countingConnection(c) : result;
                });
    }

    private Connection countingConnection(Connection connection) {
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                (p, m, a) -> {
                    Object result = forward(connection, m, a);
                    if (result instanceof PreparedStatement ps) {
                        return countingStatement(ps, PreparedStatement.class);
                    }
                    return result instanceof Statement s ? countingStatement(s, Statement.class) : result;
                });
    }

    private Object countingStatement(Statement statement, Class<?> type) {
        return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type}, (p, m, a) -> {
            if (m.getName().startsWith("execute")) {
                executions.incrementAndGet();
            }
            Object result = forward(statement, m, a);
            if (result instanceof ResultSet rows) {
                // its statement is this counting one, as a driver's result set names the statement it came from
                return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {ResultSet.class},
                        (q, n, b) -> n.getName().equals("getStatement") ? p : forward(rows, n, b));
            }
            return result;
        });
    }

    private static Object forward(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
