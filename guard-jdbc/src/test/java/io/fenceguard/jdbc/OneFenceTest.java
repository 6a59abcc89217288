package io.fenceguard.jdbc;

import static io.fenceguard.jdbc.TestFence.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.LazyConnectionDataSourceProxy;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.jdbc.datasource.lookup.AbstractRoutingDataSource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Any composition of DataSources fences a statement once: a fenced DataSource wrapped again, a fenced
 * one under a pool or a delegating proxy and wrapped again, a routing DataSource over a fenced one. A
 * fence applied twice would refuse every write (the outer rewrite sets the token column, which the
 * inner one refuses), so "once" shows as: the write is stamped with the token, and a stale one is
 * refused by the database as stale, not refused by a second fence.
 */
class OneFenceTest {

    private static final String UPDATE = "UPDATE %s SET balance = ? WHERE id = 1";

    @ParameterizedTest
    @EnumSource(SqlDialect.class)
    void wrappingAFencedDataSourceAgainReturnsItAndAnotherConfigurationIsRefused(SqlDialect dialect) throws Exception {
        String table = table(dialect);
        DataSource raw = TestDatabases.of(dialect);
        FencingConfig config = FencingConfig.builder().fence(table).build();
        FencedDataSource fenced = FencedDataSource.wrap(raw, config);

        assertThat(FencedDataSource.wrap(fenced, FencingConfig.builder().fence(table).build())).isSameAs(fenced);
        assertThatThrownBy(() -> FencedDataSource.wrap(fenced, FencingConfig.builder().fence("other").build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("already fenced")
                .hasMessageContaining(table);
        assertStampedOnceAndStaleRefused(fenced, raw, table);
    }

    @ParameterizedTest
    @EnumSource(SqlDialect.class)
    void aFencedDataSourceUnderProxiesAndAPoolIsNotFencedAgain(SqlDialect dialect) throws Exception {
        String table = table(dialect);
        DataSource raw = TestDatabases.of(dialect);
        FencingConfig config = FencingConfig.builder().fence(table).build();
        FencedDataSource inner = FencedDataSource.wrap(raw, config);
        DataSource lazy = new LazyConnectionDataSourceProxy(new TransactionAwareDataSourceProxy(inner));

        DataSource outer = FencedDataSource.wrap(lazy, config);

        assertThat(FencedDataSource.isFenced(lazy)).isTrue();
        assertThat(FencedDataSource.unfenced(lazy)).isSameAs(raw);
        assertThat(FencedDataSource.unfenced(raw)).isSameAs(raw);
        assertStampedOnceAndStaleRefused(outer, raw, table);

        HikariConfig poolConfig = new HikariConfig();
        poolConfig.setDataSource(inner);
        poolConfig.setMaximumPoolSize(2);
        poolConfig.setPoolName("one-fence-" + dialect);
        try (HikariDataSource pool = new HikariDataSource(poolConfig)) {
            DataSource overPool = FencedDataSource.wrap(pool, config);
            try (Connection c = overPool.getConnection()) {
                assertThat(c.isWrapperFor(FencedConnection.class)).isTrue();
            }
            assertStampedOnceAndStaleRefused(overPool, raw, table);
        }
    }

    @ParameterizedTest
    @EnumSource(SqlDialect.class)
    void aRoutingDataSourceOverAFencedTargetFencesOnce(SqlDialect dialect) throws Exception {
        String table = table(dialect);
        DataSource raw = TestDatabases.of(dialect);
        FencingConfig config = FencingConfig.builder().fence(table).build();
        AbstractRoutingDataSource routing = new AbstractRoutingDataSource() {
            @Override
            protected Object determineCurrentLookupKey() {
                return "main";
            }
        };
        routing.setTargetDataSources(Map.of("main", FencedDataSource.wrap(raw, config)));
        routing.afterPropertiesSet();

        assertStampedOnceAndStaleRefused(FencedDataSource.wrap(routing, config), raw, table);
    }

    @ParameterizedTest
    @EnumSource(SqlDialect.class)
    void jdbcTemplateOverALazyProxyOfAFencedDataSource(SqlDialect dialect) throws Exception {
        String table = table(dialect);
        DataSource raw = TestDatabases.of(dialect);
        recreate(raw, table);
        LazyConnectionDataSourceProxy lazy = new LazyConnectionDataSourceProxy(
                FencedDataSource.wrap(raw, FencingConfig.builder().fence(table).build()));
        JdbcTemplate jdbc = new JdbcTemplate(lazy);
        TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(lazy));
        String update = String.format(UPDATE, table);

        as("account:1", 10, () -> tx.execute(status -> jdbc.update(update, 110)));
        assertThat(stamp(raw, table)).isEqualTo("110@10");

        assertThatThrownBy(() -> as("account:1", 9, () -> tx.execute(status -> jdbc.update(update, 666))))
                .isInstanceOf(ConcurrencyFailureException.class)
                .satisfies(e -> assertThat(e.getCause()).isInstanceOf(StaleTokenException.class));
        assertThat(stamp(raw, table)).isEqualTo("110@10");
        // the lazy proxy's unwrap reaches the fence and, below it, the pool
        assertThat(lazy.unwrap(FencedDataSource.class).target()).isSameAs(raw);
        assertThat(lazy.isWrapperFor(HikariDataSource.class)).isTrue();
    }

    private static void assertStampedOnceAndStaleRefused(DataSource fenced, DataSource raw, String table)
            throws Exception {
        recreate(raw, table);
        assertThat(as("account:1", 10, () -> write(fenced, table, 110))).isEqualTo(1);
        assertThat(stamp(raw, table)).isEqualTo("110@10");
        assertThatThrownBy(() -> as("account:1", 9, () -> write(fenced, table, 666)))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.resource().value()).isEqualTo("account:1");
                    assertThat(e.token().value()).isEqualTo(9);
                    assertThat(e.sql()).isEqualTo(String.format(UPDATE, table));
                });
        assertThat(stamp(raw, table)).isEqualTo("110@10");
    }

    private static String table(SqlDialect dialect) {
        return "fg_once_" + dialect.name().toLowerCase(Locale.ROOT);
    }

    private static void recreate(DataSource raw, String table) throws SQLException {
        TestDatabases.execute(raw, "DROP TABLE IF EXISTS " + table,
                "CREATE TABLE " + table + " (id INT PRIMARY KEY, balance BIGINT NOT NULL, current_token BIGINT)",
                "INSERT INTO " + table + " (id, balance) VALUES (1, 100)");
    }

    private static int write(DataSource dataSource, String table, long balance) throws SQLException {
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement(String.format(UPDATE, table))) {
            s.setLong(1, balance);
            return s.executeUpdate();
        }
    }

    private static String stamp(DataSource raw, String table) throws SQLException {
        try (Connection c = raw.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT balance, current_token FROM " + table + " WHERE id = 1");
             ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getLong(1) + "@" + rs.getLong(2);
        }
    }
}
