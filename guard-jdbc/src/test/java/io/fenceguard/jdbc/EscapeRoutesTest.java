package io.fenceguard.jdbc;

import static io.fenceguard.jdbc.TestFence.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.jdbc.FencingRefusedException.Reason;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
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
 * Every JDBC object reachable from a fenced connection is fenced: the connection behind metadata,
 * result sets, statements and arrays is the fenced one, and {@code unwrap} to a driver type is refused.
 * Each route is tried with a plain write under a lease and without one: refused, nothing changed.
 */
class EscapeRoutesTest {

    private static final String RESOURCE = "jobs:escape";

    private String table;
    private DataSource raw;
    private FencedDataSource fenced;

    private void setUp(SqlDialect dialect) throws Exception {
        raw = TestDatabases.of(dialect);
        table = "fg_esc_" + dialect.name().toLowerCase(Locale.ROOT);
        TestDatabases.execute(raw, "DROP TABLE IF EXISTS " + table,
                "CREATE TABLE " + table + " (id INT PRIMARY KEY, balance INT, current_token BIGINT)",
                "INSERT INTO " + table + " (id, balance) VALUES (1, 100)");
        fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence(table).build());
    }

    private String write() {
        return "UPDATE " + table + " SET balance = 999 WHERE id = 1";
    }

    /** A plain write through {@code connection} is refused, with and without a lease; a fenced one is stamped. */
    private void assertFenced(Connection connection) throws Exception {
        assertThat(connection).isInstanceOf(FencedConnection.class);
        try (Statement statement = connection.createStatement()) {
            assertThatThrownBy(() -> statement.executeUpdate(write()))
                    .isInstanceOfSatisfying(FencingRefusedException.class,
                            e -> assertThat(e.reason()).isEqualTo(Reason.NO_LEASE));
            assertThatThrownBy(() -> as(RESOURCE, 10, () -> statement.executeUpdate(write())))
                    .isInstanceOfSatisfying(FencingRefusedException.class,
                            e -> assertThat(e.reason()).isEqualTo(Reason.TOKEN_WOULD_BE_INLINED));
        }
        assertRefusedAsPlain(connection.createStatement());
    }

    private void assertRefusedAsPlain(Statement statement) {
        assertThatThrownBy(() -> statement.execute(write())).isInstanceOf(FencingRefusedException.class);
        assertThatThrownBy(() -> as(RESOURCE, 10, () -> statement.executeUpdate(write())))
                .isInstanceOf(FencingRefusedException.class);
    }

    private void assertUnchanged() throws Exception {
        try (Connection c = raw.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT balance, current_token FROM " + table + " WHERE id = 1")) {
            rs.next();
            assertThat(rs.getInt(1) + ":" + rs.getObject(2)).isEqualTo("100:null");
        }
    }

    @ParameterizedTest
    @EnumSource(value = SqlDialect.class, names = {"POSTGRESQL", "MARIADB"})
    void metadataResultSetAndStatementLeadOnlyToFencedObjects(SqlDialect dialect) throws Exception {
        setUp(dialect);
        try (Connection c = fenced.getConnection()) {
            DatabaseMetaData meta = c.getMetaData();
            assertThat(meta.getConnection()).isSameAs(c);
            assertFenced(meta.getConnection());

            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id FROM " + table)) {
                assertThat(rs.getStatement()).isSameAs(s);
                assertThat(rs.getStatement().getConnection()).isSameAs(c);
                assertFenced(rs.getStatement().getConnection());
                assertRefusedAsPlain(rs.getStatement());
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT id FROM " + table + " WHERE id = ?")) {
                ps.setInt(1, 1);
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.getStatement()).isSameAs(ps);
                    assertThat(ps.getResultSet() == null || ps.getResultSet().getStatement() == ps).isTrue();
                }
                assertThat(ps.getConnection()).isSameAs(c);
            }
            try (ResultSet tables = meta.getTables(null, null, "%", null)) {
                Statement behind = tables.getStatement();
                if (behind != null) {
                    assertThat(behind.getConnection()).isSameAs(c);
                    assertRefusedAsPlain(behind);
                }
            }
            try (ResultSet columns = meta.getColumns(null, null, table, null)) {
                assertThat(columns.next()).isTrue();
                if (columns.getStatement() != null) {
                    assertThat(columns.getStatement().getConnection()).isSameAs(c);
                }
            }
            // generated keys: a result set of its own from the driver
            try (PreparedStatement ps = c.prepareStatement("SELECT 1", Statement.RETURN_GENERATED_KEYS)) {
                ps.executeQuery().close();
                ResultSet keys = ps.getGeneratedKeys();
                if (keys != null && keys.getStatement() != null) {
                    assertThat(keys.getStatement().getConnection()).isSameAs(c);
                }
            }
        }
        assertUnchanged();
        // the same object graph still fences a prepared write: stamped, not bypassed
        assertThat(as(RESOURCE, 10, () -> {
            try (Connection c = fenced.getConnection();
                 PreparedStatement ps = c.getMetaData().getConnection().prepareStatement(
                         "UPDATE " + table + " SET balance = ? WHERE id = 1")) {
                ps.setInt(1, 101);
                return ps.executeUpdate();
            }
        })).isEqualTo(1);
        try (Connection c = raw.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT balance, current_token FROM " + table + " WHERE id = 1")) {
            rs.next();
            assertThat(rs.getInt(1) + ":" + rs.getLong(2)).isEqualTo("101:10");
        }
    }

    @ParameterizedTest
    @EnumSource(value = SqlDialect.class, names = {"POSTGRESQL", "MARIADB"})
    void unwrapToADriverTypeIsRefusedAndToAJdbcInterfaceReturnsTheFencedObject(SqlDialect dialect) throws Exception {
        setUp(dialect);
        List<Class<?>> driverTypes = new ArrayList<>();
        try (Connection driverConnection = raw.getConnection()) {
            Connection physical = driverConnection.unwrap(Connection.class);
            driverTypes.add(physical.getClass());
            for (Class<?> type : physical.getClass().getInterfaces()) {
                if (!type.getName().startsWith("java.")) {
                    driverTypes.add(type);
                }
            }
        }
        assertThat(driverTypes).isNotEmpty();
        try (Connection c = fenced.getConnection(); Statement s = c.createStatement();
             PreparedStatement ps = c.prepareStatement("SELECT id FROM " + table);
             ResultSet rs = ps.executeQuery()) {
            assertThat(c.unwrap(Connection.class)).isSameAs(c);
            assertThat(c.unwrap(FencedConnection.class)).isSameAs(c);
            assertThat(ps.unwrap(PreparedStatement.class)).isSameAs(ps);
            assertThat(rs.unwrap(ResultSet.class)).isSameAs(rs);
            for (Class<?> type : driverTypes) {
                assertThat(c.isWrapperFor(type)).as("isWrapperFor(%s)", type.getName()).isFalse();
                for (Object fencedObject : List.of(c, s, ps, rs, c.getMetaData())) {
                    java.sql.Wrapper wrapper = (java.sql.Wrapper) fencedObject;
                    assertThatThrownBy(() -> as(RESOURCE, 10, () -> wrapper.unwrap(type)))
                            .isInstanceOfSatisfying(FencingRefusedException.class, e -> {
                                assertThat(e.reason()).isEqualTo(Reason.RAW_ACCESS);
                                assertThat(e.getMessage()).contains(type.getName(), "FencedDataSource.unfenced");
                            });
                    assertThatThrownBy(() -> wrapper.unwrap(type)).isInstanceOf(FencingRefusedException.class);
                }
            }
            // the driver's statement and result set classes, too
            try (Connection driverConnection = raw.getConnection();
                 Statement driverStatement = driverConnection.createStatement();
                 ResultSet driverResult = driverStatement.executeQuery("SELECT 1")) {
                Class<?> statementClass = driverStatement.unwrap(Statement.class).getClass();
                Class<?> resultClass = driverResult.unwrap(ResultSet.class).getClass();
                assertThatThrownBy(() -> s.unwrap(statementClass)).isInstanceOf(FencingRefusedException.class);
                assertThatThrownBy(() -> rs.unwrap(resultClass)).isInstanceOf(FencingRefusedException.class);
                assertThat(s.isWrapperFor(statementClass)).isFalse();
            }
        }
        assertUnchanged();
    }

    @ParameterizedTest
    @EnumSource(value = SqlDialect.class, names = {"POSTGRESQL"})
    void anArrayLeadsOnlyToFencedObjects(SqlDialect dialect) throws Exception {
        setUp(dialect);
        try (Connection c = fenced.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT ARRAY[1, 2]")) {
            rs.next();
            Array array = rs.getArray(1);
            try (ResultSet elements = array.getResultSet()) {
                Statement behind = elements.getStatement();
                if (behind != null) {
                    assertThat(behind.getConnection()).isSameAs(c);
                    assertRefusedAsPlain(behind);
                }
            }
            Object asObject = rs.getObject(1);
            assertThat(asObject).isInstanceOf(Array.class);
            assertThat(java.lang.reflect.Proxy.isProxyClass(asObject.getClass())).isTrue();
            // a fenced array goes back to the driver as its own: read one, bind it, bind a new one
            try (PreparedStatement ps = c.prepareStatement("SELECT cardinality(?::int[]) + cardinality(?::int[])")) {
                ps.setArray(1, array);
                ps.setArray(2, c.createArrayOf("int4", new Object[] {1, 2, 3}));
                try (ResultSet sum = ps.executeQuery()) {
                    sum.next();
                    assertThat(sum.getInt(1)).isEqualTo(5);
                }
            }
        }
        assertUnchanged();
    }
}
